import type { ApiOptions } from '../options/api-options.js';
import type { CliIo } from './cli-io.js';
import { UsageError } from './cli-io.js';

/** Where the CLI reads the API's tokens: JSON, kept out of the process list. */
export const API_TOKENS_ENV = 'TIDEMARK_API_TOKENS';

/**
 * The API's tokens from `TIDEMARK_API_TOKENS`: JSON of names to `{ secret, scopes }`, as the
 * `api.tokens` option takes them (the API checks each name, secret and scope). A scope holds
 * `:`, so no shorter form would stay unambiguous.
 */
export function apiTokensFrom(io: CliIo): ApiOptions['tokens'] {
  const text = io.env[API_TOKENS_ENV];
  if (text === undefined || text.trim() === '') {
    throw new UsageError(
      `the API needs tokens: set ${API_TOKENS_ENV} to JSON such as '{"ci":{"secret":"…16+ characters…","scopes":["enqueue:emails","read"]}}'`,
    );
  }
  try {
    return JSON.parse(text) as ApiOptions['tokens'];
  } catch {
    // The text holds secrets: it is not repeated.
    throw new UsageError(`${API_TOKENS_ENV} is not valid JSON`);
  }
}
