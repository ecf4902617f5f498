import type { JobStatus } from '../job-status.js';
import type { Job } from '../model/job.js';
import type { LimiterEntry } from '../model/limiter.js';
import type { Queryable } from './driver/driver.js';
import { toClaimedJob } from './rows.js';
import type { Runner } from './runner.js';
import { deferJob as deferJobQuery, parkJob as parkJobQuery } from './sql/defer.js';
import * as finish from './sql/finish.js';
import * as worker from './sql/worker.js';

/** A claimed attempt: the job plus the token that proves ownership. */
export interface ClaimedJob {
  job: Job;
  token: string;
  pickupLatencyMs: number;
  /** The wait it was woken from, when it resumes a suspended workflow. */
  wait: Record<string, unknown> | null;
  /** A limiter held it back, and this claim comes at its turn (its tokens are booked). */
  held?: boolean;
  /** The buckets its tokens came from, in a queue with `limiters`. */
  limits?: LimiterEntry[];
  /** Why it fails without starting: its limiters could not be applied. */
  refusal?: unknown;
  /** When its limiter tokens were granted: it starts by then (`performance.now()`), or goes back. */
  startBy?: number;
}

/** The outcome of one attempt, for the batched finishing write. */
export interface AttemptOutcome {
  id: string;
  token: string;
  ok: boolean;
  output?: string | null;
  error?: string | null;
  /** Seconds until the retry; null: not retryable. */
  retryDelaySeconds?: number | null;
  dropCheckpoints?: boolean;
  /** The run's history events as a JSON array (a workflow's run); absent for a plain job. */
  history?: string | null;
}

export async function claimJobs(
  db: Runner,
  queueNames: string[],
  limit: number,
  workerId: string,
  lockSeconds: number,
): Promise<ClaimedJob[]> {
  const rows = await db.run(worker.claimJobs, {
    queues: queueNames,
    limit,
    worker: workerId,
    lock_seconds: lockSeconds,
  });
  if (rows.length === 0) return [];
  // The lead row carries the start time and the retention the claim's rows share (sql/worker.ts).
  const lead = rows.find((row) => row.started_at !== null);
  // Never missing: the lead is the lowest id of the rows the statement updates.
  if (lead === undefined) throw new Error('a claim returned no lead row');
  const startedAt = lead.started_at as number;
  const sharedRetention = lead.retention as string;
  const claimed = rows.map((row) => ({
    job: toClaimedJob(row, row.retention ?? sharedRetention, startedAt, workerId, lockSeconds),
    token: row.lock_token,
    pickupLatencyMs: startedAt - row.run_at,
    wait: row.rare?.wait ?? null,
    held: row.rare?.held_by != null,
  }));
  // UPDATE … RETURNING gives rows in the order it visited them, not the claim's: the worker
  // starts a batch in the order it gets it, so put it back in claim order.
  const scores = new Map<ClaimedJob, number>();
  for (let i = 0; i < rows.length; i++) if (rows[i].score !== 0) scores.set(claimed[i], rows[i].score);
  if (scores.size === 0) return claimed.sort(inClaimOrder);
  // Keys served round-robin: the claim's fair order first (sql/worker.ts).
  return claimed.sort((a, b) => (scores.get(a) ?? 0) - (scores.get(b) ?? 0) || inClaimOrder(a, b));
}

function inClaimOrder(a: ClaimedJob, b: ClaimedJob): number {
  return (
    b.job.priority - a.job.priority ||
    a.job.runAt.getTime() - b.job.runAt.getTime() ||
    byNumericId(a.job.id, b.job.id)
  );
}

/** Ids are decimal strings without leading zeros: the shorter is smaller, else compare as text. */
function byNumericId(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * What a finishing write did with the outcomes that did not complete their jobs, by lock
 * token: a failure's new status (`retry` or `failed`), or null where the attempt no longer
 * owned its job (cancelled or reclaimed meanwhile) and nothing was written. Every outcome not
 * named was a success and completed its job.
 */
export type OutcomeExceptions = ReadonlyMap<string, JobStatus | null>;

/** Record many outcomes in one statement; returns those that did not complete their jobs. */
export async function finishAttempts(db: Runner, outcomes: AttemptOutcome[]): Promise<OutcomeExceptions> {
  // A batch of plain jobs (most of them) runs the statement without the run history's CTEs.
  const query = outcomes.some(hasHistory) ? finish.finishAttemptsWithHistory : finish.finishAttempts;
  const rows = await db.run(query, { outcomes: outcomesJson(outcomes) });
  return new Map(rows.map((r) => [r.token, r.status]));
}

/** Complete one attempt on `tx` (a transaction the caller's completion code shares). */
export async function completeOne(
  db: Runner,
  tx: Queryable,
  id: string,
  token: string,
  output: string | null,
  dropCheckpoints: boolean,
  history: string | null = null,
): Promise<boolean> {
  const rows = await db.run(
    finish.completeOne,
    { id, token, output, drop_checkpoints: dropCheckpoints, history },
    tx,
  );
  return rows.length > 0;
}

/** Extend the locks of these attempts; returns the lock tokens still held. */
export async function extendLocks(
  db: Runner,
  ids: string[],
  tokens: string[],
  lockSeconds: number,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.run(worker.extendLocks, { ids, tokens, lock_seconds: lockSeconds });
  return new Set(rows.map((r) => r.token));
}

export async function suspendJob(
  db: Runner,
  id: string,
  token: string,
  wait: Record<string, unknown>,
  wakeAt: Date | null,
  history: string | null = null,
): Promise<boolean> {
  const rows = await db.run(worker.suspendJob, {
    id,
    token,
    wait: JSON.stringify(wait),
    wake_at: wakeAt,
    history,
  });
  return rows.length > 0;
}

/** Put a running job back as pending, due in `seconds`, without spending the attempt; false if the attempt lost it. */
export async function deferJob(
  db: Runner,
  id: string,
  token: string,
  seconds: number,
  reason: string | null,
  history: string | null = null,
): Promise<boolean> {
  const rows = await db.run(deferJobQuery, { id, token, delay_seconds: seconds, reason, history });
  return rows.length > 0;
}

/** A cancelled job's handler returned: its key's slot is free (see sql/worker.ts). */
export async function releaseCancelled(db: Runner, id: string, token: string): Promise<void> {
  await db.run(worker.releaseCancelled, { id, token });
}

export async function releaseJobs(db: Runner, ids: string[], tokens: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await db.run(worker.releaseJobs, { ids, tokens });
  return rows.length;
}

function hasHistory(outcome: AttemptOutcome): boolean {
  return typeof outcome.history === 'string';
}

/**
 * The outcomes as one JSON array. Ids are digits and tokens UUIDs (both from the database);
 * outputs and errors are JSON text already, so they are embedded without parsing them again.
 * A field at its default (no output, no error, no retry, checkpoints kept, no history) is left
 * out, and the statement reads it as null: a plain completion is `{"id":…,"token":…,"ok":true}`,
 * half the text the worker builds and the server parses.
 */
function outcomesJson(outcomes: AttemptOutcome[]): string {
  const parts = new Array<string>(outcomes.length);
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i];
    let text = `{"id":${o.id},"token":"${o.token}","ok":${o.ok}`;
    if (o.output != null && o.output !== 'null') text += `,"output":${o.output}`;
    if (o.error != null) text += `,"error":${o.error}`;
    const delay = o.retryDelaySeconds;
    if (typeof delay === 'number' && Number.isFinite(delay)) text += `,"retry_delay":${delay}`;
    if (o.dropCheckpoints === true) text += ',"drop_checkpoints":true';
    if (o.history) text += `,"history":${o.history}`;
    parts[i] = `${text}}`;
  }
  return `[${parts.join(',')}]`;
}

/** Park a running workflow as paused (the determinism guard) without spending the attempt; false if the attempt lost it. */
export async function parkJob(
  db: Runner,
  id: string,
  token: string,
  errorJson: string,
  history: string | null = null,
): Promise<boolean> {
  const rows = await db.run(parkJobQuery, { id, token, error: errorJson, history });
  return rows.length > 0;
}
