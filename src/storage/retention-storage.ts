import type { ArchivedJob } from '../model/archive.js';
import type { SweepBreakdown } from '../model/sweep.js';
import { readArchivedJobs } from './archived-jobs.js';
import type { Queryable } from './driver/driver.js';
import { throughGate } from './retention-gate.js';
import type { Runner } from './runner.js';
import { deleteExpiredAudit as deleteExpiredAuditRows } from './sql/audit.js';
import type { NoParams, Query } from './sql/define-query.js';
import type { GateRow } from './sql/gate.js';
import * as limiterSql from './sql/limiters.js';
import { type BatchParams, CURSOR_START, type CursorRow } from './sql/retention-batch.js';
import * as purgeQueries from './sql/retention-purge.js';
import { type PurgeParams, purgeFinished } from './sql/retention-purge.js';
import * as sql from './sql/retention-sweep.js';
import { deleteExpiredTokens as deleteExpiredTokenRows } from './sql/tokens.js';
import { recordSweep as recordSweepRow, type SweepToRecord } from './sweep-history.js';

export type { SweepToRecord } from './sweep-history.js';

/** Where the next batch of a sweep or purge starts (a keyset cursor over its index). */
export interface BatchCursor {
  after: string;
  afterId: string;
}

export const FIRST_BATCH: BatchCursor = { after: CURSOR_START.after, afterId: CURSOR_START.after_id };

/** One batch of the due-tree sweep. */
export interface DueBatch {
  /** Tops looked at; fewer than the batch size means the due set is drained. */
  scanned: number;
  next: BatchCursor;
  /** Jobs deleted per queue and status. */
  deleted: SweepBreakdown[];
}

/** One batch of due trees, locked in a transaction for the archive path. */
export interface LockedBatch {
  scanned: number;
  next: BatchCursor;
  /** The locked jobs: tops and their members. */
  ids: string[];
}

/** What a full pass would delete now, by what it deletes. */
export interface SweepDue {
  byQueue: SweepBreakdown[];
  signals: number;
  logLines: number;
  uniqueLocks: number;
}

/** Which finished jobs a manual purge removes. */
export interface PurgeFilter {
  queue: string | null;
  statuses: string[];
  olderThanSeconds: number;
}

/**
 * The retention capability of a storage: deleting due rows. It is optional (SPEC section
 * 7): a storage without it keeps working, and workers then log one warning and run no
 * sweep. Each deleting method is one statement behind the retention gate (sql/gate.ts),
 * and throws RetentionPausedError while retention is paused, having deleted nothing. The
 * archive path is one transaction the caller holds the gate in (retention/archive.ts):
 * lockDueBatch, readArchived, the hook, deleteJobs.
 */
export interface RetentionCapability {
  /**
   * Delete one batch of due trees. Each deleting method takes a statement timeout in
   * milliseconds (default none): past it the database cancels the batch, which is kept whole.
   */
  deleteDueBatch(batchSize: number, from: BatchCursor, timeoutMs?: number): Promise<DueBatch>;
  /** Lock one batch of due trees on `tx`. */
  lockDueBatch(batchSize: number, from: BatchCursor, tx: Queryable): Promise<LockedBatch>;
  /** The locked jobs with their checkpoints and signals, read on `tx`. */
  readArchived(ids: string[], tx: Queryable): Promise<ArchivedJob[]>;
  /** Delete these jobs and everything that goes with them on `tx`; what went per queue and status. */
  deleteJobs(ids: string[], tx: Queryable): Promise<SweepBreakdown[]>;
  /** Delete up to `batchSize` consumed signals past their window; returns how many. */
  deleteConsumedSignals(batchSize: number, timeoutMs?: number): Promise<number>;
  /** Delete up to `batchSize` log lines past their own window; returns how many. */
  deleteDueLogLines(batchSize: number, timeoutMs?: number): Promise<number>;
  /** Delete up to `batchSize` audit rows older than `retainSeconds`; returns how many. */
  deleteExpiredAudit(batchSize: number, retainSeconds: number, timeoutMs?: number): Promise<number>;
  /** Delete up to `batchSize` expired unique locks; returns how many. */
  deleteExpiredUniqueLocks(batchSize: number, timeoutMs?: number): Promise<number>;
  /** One batch of full limiter buckets (rows that hold nothing a job waits on). */
  deleteFullBuckets(batchSize: number, timeoutMs?: number): Promise<number>;
  /** One batch of callback tokens past their expiry, never completed or cancelled. */
  deleteExpiredTokens(batchSize: number, timeoutMs?: number): Promise<number>;
  /** What a full pass would delete now. */
  preview(): Promise<SweepDue>;
  /** One batch of a manual purge. */
  purgeBatch(
    filter: PurgeFilter,
    batchSize: number,
    from: BatchCursor,
    timeoutMs?: number,
  ): Promise<{ scanned: number; next: BatchCursor; deleted: number }>;
  countPurgeable(filter: PurgeFilter): Promise<number>;
  recordSweep(sweep: SweepToRecord): Promise<void>;
  /** Give deleted rows' space back where nothing else will (embedded PGlite has no autovacuum). */
  reclaimSpace(): Promise<void>;
}

/* The retention capability over Tidemark's own schema, on either driver. */

export async function deleteDueBatch(
  db: Runner,
  batchSize: number,
  from: BatchCursor,
  timeoutMs?: number,
): Promise<DueBatch> {
  const row = await throughGate(
    db,
    (tx) => db.run(sql.deleteDueTrees(batchSize), cursorParams(from), tx),
    timeoutMs,
  );
  return { scanned: Number(row.scanned), next: nextCursor(row, from), deleted: toBreakdown(row.counts) };
}

export async function lockDueBatch(
  db: Runner,
  batchSize: number,
  from: BatchCursor,
  tx: Queryable,
): Promise<LockedBatch> {
  const [row] = await db.run(sql.lockDueTrees(batchSize), cursorParams(from), tx);
  return { scanned: Number(row.scanned), next: nextCursor(row, from), ids: row.ids.map(String) };
}

export function readArchived(db: Runner, ids: string[], tx: Queryable): Promise<ArchivedJob[]> {
  return readArchivedJobs(db, ids, tx);
}

export async function deleteJobs(db: Runner, ids: string[], tx: Queryable): Promise<SweepBreakdown[]> {
  return toBreakdown(await db.run(sql.deleteJobsById, { ids }, tx));
}

export async function deleteConsumedSignals(
  db: Runner,
  batchSize: number,
  timeoutMs?: number,
): Promise<number> {
  const row = await throughGate(db, (tx) => db.run(sql.deleteConsumedSignals(batchSize), {}, tx), timeoutMs);
  return Number(row.n);
}

export function deleteDueLogLines(db: Runner, batchSize: number, timeoutMs?: number): Promise<number> {
  return deleteBehindGate(db, sql.deleteDueLogLines(batchSize), timeoutMs);
}

export async function deleteExpiredAudit(
  db: Runner,
  batchSize: number,
  retainSeconds: number,
  timeoutMs?: number,
): Promise<number> {
  const query = deleteExpiredAuditRows(batchSize);
  const row = await throughGate(db, (tx) => db.run(query, { retain_seconds: retainSeconds }, tx), timeoutMs);
  return Number(row.n);
}

export function deleteExpiredUniqueLocks(db: Runner, batchSize: number, timeoutMs?: number): Promise<number> {
  return deleteBehindGate(db, sql.deleteExpiredUniqueLocks(batchSize), timeoutMs);
}

export function deleteFullBuckets(db: Runner, batchSize: number, timeoutMs?: number): Promise<number> {
  return deleteBehindGate(db, limiterSql.deleteFullBuckets(batchSize), timeoutMs);
}

export function deleteExpiredTokens(db: Runner, batchSize: number, timeoutMs?: number): Promise<number> {
  return deleteBehindGate(db, deleteExpiredTokenRows(batchSize), timeoutMs);
}

/** Run one gated deletion batch; the rows it deleted. */
async function deleteBehindGate(
  db: Runner,
  query: Query<NoParams, GateRow & { n: number }>,
  timeoutMs?: number,
): Promise<number> {
  const row = await throughGate(db, (tx) => db.run(query, {}, tx), timeoutMs);
  return Number(row.n);
}

export async function preview(db: Runner): Promise<SweepDue> {
  const rows = await db.run(sql.previewDueTrees, {});
  const [signals] = await db.run(sql.countConsumedSignalsDue, {});
  const [logs] = await db.run(sql.countDueLogLines, {});
  const [locks] = await db.run(sql.countExpiredUniqueLocks, {});
  return {
    byQueue: toBreakdown(rows),
    signals: Number(signals.n),
    logLines: Number(logs.n),
    uniqueLocks: Number(locks.n),
  };
}

export async function purgeBatch(
  db: Runner,
  filter: PurgeFilter,
  batchSize: number,
  from: BatchCursor,
  timeoutMs?: number,
) {
  const row = await throughGate(
    db,
    (tx) => db.run(purgeFinished(batchSize), { ...purgeParams(filter), ...cursorParams(from) }, tx),
    timeoutMs,
  );
  return { scanned: Number(row.scanned), next: nextCursor(row, from), deleted: Number(row.n) };
}

export async function countPurgeable(db: Runner, filter: PurgeFilter): Promise<number> {
  const [row] = await db.run(purgeQueries.countPurgeable, purgeParams(filter));
  return Number(row.n);
}

export function recordSweep(db: Runner, sweep: SweepToRecord): Promise<void> {
  return recordSweepRow(db, sweep);
}

export async function reclaimSpace(db: Runner): Promise<void> {
  if (db.driver.kind !== 'pglite') return;
  await db.driver.exec(sql.vacuumSweptTables.text(db.schema));
}

function cursorParams(from: BatchCursor): BatchParams {
  return { after: from.after, after_id: from.afterId };
}

function nextCursor(row: CursorRow, from: BatchCursor): BatchCursor {
  return row.after === null || row.after_id === null ? from : { after: row.after, afterId: row.after_id };
}

function purgeParams(filter: PurgeFilter): PurgeParams {
  return { queue: filter.queue, statuses: filter.statuses, older_than_seconds: filter.olderThanSeconds };
}

function toBreakdown(rows: sql.CountRow[]): SweepBreakdown[] {
  return rows.map((r) => ({ queue: r.queue, status: r.status, count: Number(r.n) }));
}
