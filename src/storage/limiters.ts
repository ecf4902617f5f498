import type { LimiterEntry, LimiterInfo, LimiterOptions, LimiterStatus } from '../model/limiter.js';
import type { Runner } from './runner.js';
import * as sql from './sql/limiters.js';

export type { GrantRow, TokenVerdictRow } from './sql/limiters.js';

/** A claimed job asking for its tokens. */
export interface TokenRequest {
  id: string;
  token: string;
  /** The job comes at the turn a limiter gave it: it spends the tokens booked for it. */
  held: boolean;
  limits: LimiterEntry[];
}

export async function defineLimiter(
  db: Runner,
  name: string,
  options: Required<LimiterOptions>,
): Promise<void> {
  await db.run(sql.upsertLimiter, {
    name,
    limit_count: options.limit,
    period_seconds: options.periodSeconds,
    burst: options.burst,
  });
}

/** Whether the limiter existed. */
export async function deleteLimiter(db: Runner, name: string): Promise<boolean> {
  return (await db.run(sql.deleteLimiter, { name })).length > 0;
}

export async function listLimiters(db: Runner): Promise<LimiterInfo[]> {
  return (await db.run(sql.listLimiters, {})).map(toInfo);
}

/** One bucket now; null when the limiter does not exist. */
export async function limiterStatus(db: Runner, name: string, key: string): Promise<LimiterStatus | null> {
  const [row] = await db.run(sql.limiterBucket, { name, key });
  if (!row) return null;
  return {
    ...toInfo(row),
    key,
    tokens: Number(row.tokens),
    capacity: row.burst + 1,
    nextTokenAt: row.next_token_at,
    fullAt: row.full_at,
  };
}

/**
 * What a statement that took tokens returned, and when it was handed to the database on this
 * process's clock (`performance.now()`): a grant is no earlier than that, plus its time in the
 * database.
 */
export interface Taken<T> {
  answer: T;
  sentAt: number;
}

/**
 * Grant every job of a claim at once, when its buckets hold what the jobs ask in all
 * (`totals`, per limiter and key) and none has turns booked; null when it did not.
 */
export async function grantAll(
  db: Runner,
  totals: { name: string; key: string; total: number }[],
  held: string[],
): Promise<Taken<sql.GrantRow | null>> {
  const { rows, sentAt } = await db.runTimed(sql.grantLimiterTokens, {
    names: totals.map((t) => t.name),
    keys: totals.map((t) => t.key),
    totals: totals.map((t) => t.total),
    held,
  });
  return { answer: rows[0] ?? null, sentAt };
}

/** The verdicts on claimed jobs, in claim order (take_limiter_tokens, migration 8). */
export async function takeTokens(
  db: Runner,
  requests: TokenRequest[],
): Promise<Taken<sql.TokenVerdictRow[]>> {
  const { rows, sentAt } = await db.runTimed(sql.takeLimiterTokens, { requests: JSON.stringify(requests) });
  return { answer: rows, sentAt };
}

/** Empty these buckets until `seconds` from now. */
export async function drainBuckets(
  db: Runner,
  buckets: { name: string; key: string }[],
  seconds: number,
): Promise<void> {
  await db.run(sql.drainBuckets, { buckets: JSON.stringify(buckets), seconds });
}

function toInfo(row: sql.LimiterRow): LimiterInfo {
  return {
    name: row.name,
    limit: row.limit_count,
    periodSeconds: row.period_seconds,
    burst: row.burst,
    spacingSeconds: row.spacing_seconds,
    busyBuckets: row.buckets,
    waiting: row.waiting,
  };
}
