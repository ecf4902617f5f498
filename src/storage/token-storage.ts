import type { JobStatus } from '../job-status.js';
import type { Runner } from './runner.js';
import * as sql from './sql/tokens.js';

/** A callback token as the domain reads it. */
export interface TokenRow {
  id: string;
  jobId: string;
  name: string;
  state: 'pending' | 'completed' | 'cancelled' | 'expired';
  data: unknown;
  /** The JSON Schema its payload is checked by, or null. */
  schema: unknown;
  expiresAt: Date;
  /** Past `expiresAt` by the database's clock. */
  expired: boolean;
  /** Its job's status. */
  jobStatus: JobStatus | null;
}

/** What a settlement writes: completed with a payload (JSON text), or cancelled. */
export type TokenSettlement = { state: 'completed'; dataText: string } | { state: 'cancelled' };

/* Callback tokens (ctx.createToken, tm.completeToken). Same statements on both drivers. */

function toToken(row: sql.StoredToken): TokenRow {
  return {
    id: row.id,
    jobId: row.job_id,
    name: row.name,
    state: row.state,
    data: row.data ?? null,
    schema: row.schema ?? null,
    expiresAt: row.expires_at,
    expired: row.expired === true,
    jobStatus: row.job_status ?? null,
  };
}

/**
 * The workflow's token of this name: made now under `id` (only while the attempt owns the
 * job), or the one an earlier run of it made. Null when the attempt no longer owns the job.
 */
export async function createToken(
  db: Runner,
  input: {
    id: string;
    jobId: string;
    lockToken: string;
    name: string;
    seconds: number;
    schemaText: string | null;
  },
): Promise<{ id: string; expiresAt: Date } | null> {
  const params = {
    id: input.id,
    job_id: input.jobId,
    token: input.lockToken,
    name: input.name,
    seconds: input.seconds,
    schema: input.schemaText,
  };
  const [made] = await db.run(sql.insertToken, params);
  if (made) return { id: made.id, expiresAt: made.expires_at };
  const [found] = await db.run(sql.findTokenByName, { job_id: input.jobId, name: input.name });
  return found ? { id: found.id, expiresAt: found.expires_at } : null;
}

export async function readToken(db: Runner, id: string): Promise<TokenRow | null> {
  const [row] = await db.run(sql.readToken, { id });
  return row ? toToken(row) : null;
}

/** A token as a job's detail lists it: no payload, no schema. */
export interface JobTokenRow {
  id: string;
  name: string;
  state: TokenRow['state'];
  createdAt: Date;
  expiresAt: Date;
  /** When it was completed, cancelled or marked expired; null while pending. */
  settledAt: Date | null;
}

/** The job's tokens, oldest first. */
export async function listJobTokens(db: Runner, jobId: string): Promise<JobTokenRow[]> {
  const rows = await db.run(sql.listJobTokens, { job_id: jobId });
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    state: row.state,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    settledAt: row.settled_at,
  }));
}

/** True when the token was pending and past its time, and is now marked expired. */
export async function expireToken(db: Runner, id: string): Promise<boolean> {
  return (await db.run(sql.expireToken, { id })).length > 0;
}

/**
 * Settle a token in one transaction, under its row lock: `decide` reads the locked row (null
 * when there is none) and says what to write, or null for nothing; when it throws, nothing is
 * written. A settlement wakes the job parked on the token. Returns the row as it was read.
 */
export async function settleToken(
  db: Runner,
  id: string,
  decide: (row: TokenRow | null) => TokenSettlement | null,
): Promise<TokenRow | null> {
  return db.driver.transaction(async (tx) => {
    const [locked] = await db.run(sql.lockToken, { id }, tx);
    const row = locked ? toToken(locked) : null;
    const settlement = decide(row);
    if (row !== null && settlement !== null) {
      const data = settlement.state === 'completed' ? settlement.dataText : null;
      await db.run(sql.settleToken, { id, state: settlement.state, data, channel: db.channel }, tx);
    }
    return row;
  });
}
