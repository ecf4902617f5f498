import { randomUUID } from 'node:crypto';
import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, TokenPayloadError, TokensNotConfiguredError } from '../errors.js';
import { isObject } from '../model/guards.js';
import type { Job } from '../model/job.js';
import { MAX_SCHEMA_BYTES, payloadProblem, schemaProblem } from '../model/token-schema.js';
import { isTokenId, signTokenLink } from '../model/token-url.js';
import type { CheckpointRow } from '../model/workflow.js';
import { checkKnownFields, checkSeconds } from '../options/check.js';
import { toJsonText } from '../options/json.js';
import type { HistoryBook } from './history-book.js';
import { type RunNames, WAIT_PREFIX } from './job-context.js';
import { LostOwnership, type Suspension, type Wait } from './suspend.js';

/** Options of `ctx.createToken`. */
export interface CreateTokenOptions {
  /** How long the token can be completed, from its making; its wait times out then. */
  timeoutSeconds: number;
  /**
   * A JSON Schema (a TypeBox schema is one) its payload must meet, checked by whoever completes
   * it, before anything is written. Keywords: type, properties, required,
   * additionalProperties, items, enum, const, anyOf, min/maxLength, pattern, minimum, maximum,
   * exclusiveMinimum/Maximum, min/maxItems, and annotations; any other is refused here.
   */
  schema?: unknown;
}

/** A token made by `ctx.createToken`: give its `id` or `url()` to whoever completes it. */
export interface CallbackToken {
  readonly id: string;
  readonly name: string;
  /** When it stops being usable, by the database's clock. */
  readonly expiresAt: Date;
  /**
   * The signed URL that completes it (`tokens.baseUrl` + id, expiry and MAC); with `payload`,
   * the URL carries that payload and completes the token with it. Throws
   * TokensNotConfiguredError without `tokens.secrets` or `tokens.baseUrl`.
   */
  url(payload?: unknown): string;
}

/** What `ctx.waitForToken` resolves to. */
export type TokenResult<T = unknown> = { ok: true; data: T } | { ok: false; reason: 'timeout' | 'cancelled' };

/**
 * What the token calls use of their run: RunState's own members of these names (protected
 * there, so WorkflowContext hands itself over as this; test/workflow/tokens.test.ts runs
 * every path through them).
 */
export interface TokenRun {
  deps: { core: EngineCore; job: Job; token: string };
  names: RunNames;
  book: HistoryBook;
  /** The call's place in the run (the determinism guard) and the run's checkpoints. */
  enter(kind: string, name: string): Promise<{ seq: number; checkpoints: Map<string, CheckpointRow> }>;
  save(name: string, kind: string, outputText: string, seq: number | null): Promise<void>;
  now(): number;
  suspend(wait: Wait, wakeAt: Date | null): Suspension;
  throwIfSuspended(): void;
}

const MAX_TOKEN_SECONDS = 3_153_600_000;
/** A URL's payload travels in the URL: kept short enough for every mail client and proxy. */
const MAX_URL_PAYLOAD_BYTES = 2_048;

/** `ctx.createToken`: made once per name in a run; a replay gets the same token back. */
export async function createToken(
  run: TokenRun,
  name: string,
  options: CreateTokenOptions,
): Promise<CallbackToken> {
  run.throwIfSuspended();
  run.names.claim(name);
  if (!isObject(options))
    throw new InvalidOptionError('options', 'an object { timeoutSeconds, schema? }', options);
  checkKnownFields(options, 'options', ['timeoutSeconds', 'schema']);
  const seconds = checkSeconds(options.timeoutSeconds, 'timeoutSeconds', {
    exclusiveMin: true,
    max: MAX_TOKEN_SECONDS,
  });
  const schema = options.schema;
  const schemaText = schema === undefined ? null : checkedSchemaText(schema);
  const { seq, checkpoints } = await run.enter('token', name);
  const stored = checkpoints.get(name);
  const { core, job, token } = run.deps;
  let made: { id: string; expiresAt: Date };
  if (stored?.kind === 'token') {
    const output = stored.output as { id: string; expiresAt: string };
    made = { id: output.id, expiresAt: new Date(output.expiresAt) };
  } else {
    const input = { id: randomUUID(), jobId: job.id, lockToken: token, name, seconds, schemaText };
    const got = await core.storage.tokens.createToken(input);
    if (got === null) throw new LostOwnership(job.id);
    made = got;
    const text = JSON.stringify({ id: made.id, expiresAt: made.expiresAt.toISOString() });
    await run.save(name, 'token', text, seq);
    run.book.add('token', { name, tokenId: made.id, expiresAt: made.expiresAt.toISOString() });
  }
  return callbackToken(core, name, made, schema);
}

function checkedSchemaText(schema: unknown): string {
  const problem = schemaProblem(schema);
  if (problem !== null) {
    throw new InvalidOptionError(problem.path, `a JSON Schema tokens can check (${problem.problem})`, schema);
  }
  return toJsonText(schema, 'schema', MAX_SCHEMA_BYTES);
}

function callbackToken(
  core: EngineCore,
  name: string,
  made: { id: string; expiresAt: Date },
  schema: unknown,
): CallbackToken {
  const { id, expiresAt } = made;
  return Object.freeze({
    id,
    name,
    expiresAt,
    url(payload?: unknown): string {
      const settings = core.tokens;
      if (!settings || settings.secrets.length === 0) throw new TokensNotConfiguredError('tokens.secrets');
      if (settings.baseUrl === null) throw new TokensNotConfiguredError('tokens.baseUrl');
      let text: string | null = null;
      if (payload !== undefined) {
        text = toJsonText(payload, 'payload', MAX_URL_PAYLOAD_BYTES);
        const problem = payloadProblem(schema, JSON.parse(text), 'payload');
        if (problem !== null) throw new TokenPayloadError(id, problem.path, problem.problem);
      }
      return `${settings.baseUrl}/${signTokenLink(settings.secrets[0], id, expiresAt, text)}`;
    },
  });
}

/**
 * The checkpoint name of a token's wait. No step or sleep name starts with `wait:`, a named
 * signal wait's has no `#`, and an unnamed one's ends in `#<number>`: none can meet this.
 */
const waitKey = (name: string) => `${WAIT_PREFIX}${name}#token`;

/**
 * `ctx.waitForToken`: the token's outcome, recorded once known, so a replay reads the same.
 * Parks the job (no slot held) until the token is completed or cancelled, or its expiry.
 */
export async function waitForToken<T = unknown>(
  run: TokenRun,
  token: CallbackToken,
): Promise<TokenResult<T>> {
  run.throwIfSuspended();
  if (!isObject(token) || typeof token.name !== 'string' || !isTokenId(token.id)) {
    throw new InvalidOptionError('token', 'a token made by ctx.createToken', token);
  }
  const key = waitKey(token.name);
  const { seq, checkpoints } = await run.enter('token-wait', key);
  const made = checkpoints.get(token.name);
  const madeOutput = made?.output as { id?: string; expiresAt?: string } | undefined;
  if (made?.kind !== 'token' || madeOutput?.id !== token.id) {
    throw new InvalidOptionError('token', 'a token this run made with ctx.createToken', token.id);
  }
  const state = checkpoints.get(key)?.output as { state?: string; result?: TokenResult } | undefined;
  if (state?.state === 'done' && state.result) return state.result as TokenResult<T>;
  const expiresAt = new Date(String(madeOutput.expiresAt));
  const base = { tokenId: token.id, deadline: expiresAt.toISOString() };
  if (state === undefined)
    await run.save(key, 'token-wait', JSON.stringify({ state: 'waiting', ...base }), seq);
  const result = await outcome(run, token.id, expiresAt);
  if (result === null)
    throw run.suspend({ kind: 'token', name: token.name, tokenId: token.id, key }, expiresAt);
  await run.save(key, 'token-wait', JSON.stringify({ state: 'done', ...base, result }), seq);
  run.book.add(result.ok ? 'token-completed' : `token-${result.reason}`, { key, tokenId: token.id });
  return result as TokenResult<T>;
}

/** The token's outcome now, or null while it is pending and not yet due to expire. */
async function outcome(run: TokenRun, id: string, expiresAt: Date): Promise<TokenResult | null> {
  const tokens = run.deps.core.storage.tokens;
  let row = await tokens.readToken(id);
  // Past its time by the database's clock: marked expired, so a later completion is refused.
  if (row?.state === 'pending' && row.expired) {
    if (await tokens.expireToken(id)) return { ok: false, reason: 'timeout' };
    row = await tokens.readToken(id);
  }
  // Swept once expired (completed and cancelled tokens stay as long as their job).
  if (row === null) return expiresAt.getTime() <= run.now() ? { ok: false, reason: 'timeout' } : null;
  if (row.state === 'completed') return { ok: true, data: row.data };
  if (row.state === 'cancelled') return { ok: false, reason: 'cancelled' };
  if (row.state === 'expired') return { ok: false, reason: 'timeout' };
  return null;
}
