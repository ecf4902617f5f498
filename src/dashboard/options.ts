import { InvalidOptionError } from '../errors.js';
import type { ApiOptions } from '../options/api-options.js';
import {
  type DashboardHandlerOptions,
  type DashboardOptions,
  dashboardHandlerOptions,
  dashboardOptions,
} from '../options/dashboard-options.js';

export interface ResolvedHandlerOptions {
  token: string | undefined;
  /** Named tokens: name → secret (the audit's actor for that token's requests). */
  tokens: Record<string, string>;
  readOnly: boolean;
  basePath: string;
  traceUrl: string | undefined;
  /** The HTTP API's options, read, when it is served beside the pages. */
  api: ApiOptions | undefined;
}

export function resolveHandlerOptions(input: DashboardHandlerOptions | undefined): ResolvedHandlerOptions {
  const { token, tokens, readOnly, basePath, traceUrl, api } = dashboardHandlerOptions.read(input ?? {});
  return { token, tokens: distinctTokens(token, tokens), readOnly, basePath, traceUrl, api };
}

export function resolveServerOptions(
  input: DashboardOptions | undefined,
): ResolvedHandlerOptions & { port: number; host: string } {
  const { token, tokens, readOnly, basePath, traceUrl, api, port, host } = dashboardOptions.read(input ?? {});
  return { token, tokens: distinctTokens(token, tokens), readOnly, basePath, traceUrl, api, port, host };
}

/** The named tokens, none of them the plain `token`'s secret (whose name would then be ambiguous). */
function distinctTokens(token: string | undefined, tokens: Record<string, string> | undefined) {
  for (const [name, secret] of Object.entries(tokens ?? {})) {
    if (secret === token) {
      throw new InvalidOptionError(`tokens.${name}`, "a secret other than 'token'", '(hidden)');
    }
  }
  return tokens ?? {};
}
