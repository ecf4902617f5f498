import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';
import { checkSeconds } from '../options/check.js';
import type { RunNames } from '../workflow/job-context.js';
import type { CallbackToken, CreateTokenOptions, TokenResult } from '../workflow/token-wait.js';

/** How a token answers on the fake context, by token name: completed with data, or not. */
export type FakeTokenAnswer = { data: unknown } | 'timeout' | 'cancelled';

/** A token call a handler made on the fake context. */
export type TokenCall =
  | { kind: 'token'; name: string; timeoutSeconds: number }
  | { kind: 'token-wait'; name: string; result: TokenResult };

/** `ctx.createToken` and `ctx.waitForToken` of runHandler's fake context. */
export function fakeTokens(
  names: RunNames,
  answers: Record<string, FakeTokenAnswer> | undefined,
  calls: { push(call: TokenCall): unknown },
) {
  const made = new Set<string>();
  return {
    async createToken(name: string, options: CreateTokenOptions): Promise<CallbackToken> {
      names.claim(name);
      const timeoutSeconds = checkSeconds(options?.timeoutSeconds, 'timeoutSeconds', { exclusiveMin: true });
      const id = randomUUID();
      made.add(id);
      calls.push({ kind: 'token', name, timeoutSeconds });
      const expiresAt = new Date(Date.now() + timeoutSeconds * 1000);
      return { id, name, expiresAt, url: () => `https://tokens.invalid/${id}` };
    },
    async waitForToken<T = unknown>(token: CallbackToken): Promise<TokenResult<T>> {
      if (!made.has(token?.id))
        throw new InvalidOptionError('token', 'a token made by ctx.createToken', token);
      const answer = answers?.[token.name] ?? 'timeout';
      const result: TokenResult =
        typeof answer === 'string' ? { ok: false, reason: answer } : { ok: true, data: answer.data };
      calls.push({ kind: 'token-wait', name: token.name, result });
      return result as TokenResult<T>;
    },
  };
}
