import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, TokenClosedError, TokenNotFoundError, TokenPayloadError } from '../errors.js';
import { isFinished } from '../job-status.js';
import { payloadProblem } from '../model/token-schema.js';
import { isTokenId } from '../model/token-url.js';
import { toJsonText } from '../options/json.js';
import { DEFAULT_TOKEN_PAYLOAD_BYTES } from '../options/token-options.js';
import type { TokenRow } from '../storage/storage.js';

/** What `tm.completeToken` resolves to: completed now, or completed before (nothing changed). */
export interface TokenCompletion {
  status: 'completed' | 'already-completed';
}

/** What `tm.cancelToken` resolves to; a token completed first stays completed. */
export interface TokenCancellation {
  status: 'cancelled' | 'already-cancelled' | 'already-completed';
}

/** A checked completion: the token's id and its payload as JSON text, within the cap. */
export interface TokenCompleteRequest {
  id: string;
  dataText: string;
}

export function checkTokenId(id: unknown): string {
  if (!isTokenId(id)) throw new InvalidOptionError('id', 'a callback token id (a lowercase UUID)', id);
  return id;
}

/** Check `tm.completeToken`'s arguments before anything is read. */
export function checkCompleteRequest(core: EngineCore, id: unknown, data: unknown): TokenCompleteRequest {
  const tokenId = checkTokenId(id);
  const dataText = toJsonText(data, 'data');
  const cap = core.tokens?.maxPayloadBytes ?? DEFAULT_TOKEN_PAYLOAD_BYTES;
  const bytes = Buffer.byteLength(dataText);
  if (bytes > cap) {
    throw new TokenPayloadError(
      tokenId,
      'data',
      `is ${bytes} bytes of JSON, more than tokens.maxPayloadBytes (${cap})`,
    );
  }
  return { id: tokenId, dataText };
}

/** Why this token cannot be settled now, or null when it is pending and usable. */
function closedReason(row: TokenRow): 'expired' | 'cancelled' | 'job-finished' | null {
  if (row.state === 'cancelled') return 'cancelled';
  if (row.state === 'expired' || row.expired) return 'expired';
  if (row.jobStatus === null || isFinished(row.jobStatus)) return 'job-finished';
  return null;
}

/**
 * Complete a token with a payload, once: the first completion wins and wakes the workflow
 * waiting on it; a later one reports `already-completed` and writes nothing. Refused, nothing
 * written: an unknown token (TokenNotFoundError), one expired, cancelled or of a finished job
 * (TokenClosedError), a payload its schema refuses (TokenPayloadError).
 */
export async function completeToken(
  core: EngineCore,
  request: TokenCompleteRequest,
): Promise<TokenCompletion> {
  const { id, dataText } = request;
  const row = await core.storage.tokens.settleToken(id, (locked) => {
    if (locked === null) throw new TokenNotFoundError(id);
    if (locked.state === 'completed') return null;
    const closed = closedReason(locked);
    if (closed !== null) throw new TokenClosedError(id, closed);
    const problem = payloadProblem(locked.schema, JSON.parse(dataText));
    if (problem !== null) throw new TokenPayloadError(id, problem.path, problem.problem);
    return { state: 'completed', dataText };
  });
  return { status: row?.state === 'completed' ? 'already-completed' : 'completed' };
}

/**
 * Cancel a pending token: the workflow waiting on it resumes with `{ ok: false, reason:
 * 'cancelled' }`, and the token can no longer be completed.
 */
export async function cancelToken(core: EngineCore, id: string): Promise<TokenCancellation> {
  const row = await core.storage.tokens.settleToken(id, (locked) => {
    if (locked === null) throw new TokenNotFoundError(id);
    if (locked.state === 'completed' || locked.state === 'cancelled') return null;
    const closed = closedReason(locked);
    if (closed !== null) throw new TokenClosedError(id, closed);
    return { state: 'cancelled' };
  });
  if (row?.state === 'completed') return { status: 'already-completed' };
  return { status: row?.state === 'cancelled' ? 'already-cancelled' : 'cancelled' };
}
