import type { Job } from '../model/job.js';
import type { Queryable } from './driver/driver.js';
import { type InsertDefaults, type InsertRow, insertParams, uniformInsertParams } from './insert-rows.js';
import { toJob } from './rows.js';
import type { Runner } from './runner.js';
import type { FoldedJobRow } from './sql/folds.js';
import * as folds from './sql/folds.js';
import * as jobs from './sql/jobs.js';
import type { QueueChangeCursor } from './sql/queue-changes.js';
import * as changes from './sql/queue-changes.js';

// Job dependencies are part of enqueueing and reading jobs: `storage.jobs.lockDependencies`, …
export {
  attachDependencies,
  type DependencyOutcome,
  type DependentToAttach,
  dependenciesOf,
  lockDependencies,
} from './dependencies.js';

/** Insert a batch; returns, in input order, each row's id and whether it was inserted. */
export async function insertJobs(
  db: Runner,
  rows: InsertRow[],
  defaults: InsertDefaults,
  on?: Queryable,
): Promise<{ id: string; inserted: boolean }[]> {
  const uniform = uniformInsertParams(rows, defaults, db.channel);
  if (uniform !== null) {
    const [{ ids }] = await db.run(jobs.insertUniformJobs, uniform, on);
    return checkedIds(ids.split(','), rows.length);
  }
  const params = insertParams(rows, defaults, db.channel);
  if (rows.some((row) => row.unique_key !== undefined)) {
    const result = await db.run(jobs.insertJobs, params, on);
    return result.map((r) => ({ id: String(r.id), inserted: r.inserted }));
  }
  // Every row is inserted, and ids are drawn in input order: the n-th smallest id is the
  // n-th row's.
  const ids = await db.run(jobs.insertPlainJobs, params, on);
  return checkedIds(
    ids.map((r) => String(r.id)),
    rows.length,
  );
}

/** Every row inserted, the n-th id the n-th row's. */
function checkedIds(ids: string[], count: number): { id: string; inserted: boolean }[] {
  if (ids.length !== count) throw new Error(`insert returned ${ids.length} ids for ${count} jobs`);
  return ids.map((id) => ({ id, inserted: true }));
}

export async function findUniqueHolder(
  db: Runner,
  queue: string,
  uniqueKey: string,
  on?: Queryable,
): Promise<string | null> {
  const rows = await db.run(jobs.findUniqueHolder, { queue, unique_key: uniqueKey }, on);
  return rows[0] ? String(rows[0].id) : null;
}

/** Insert one job behind a unique lock; null when a live lock holds the scope. */
export async function insertJobWithLock(
  db: Runner,
  row: InsertRow,
  scope: string,
  ttlSeconds: number,
  defaults: InsertDefaults,
  on?: Queryable,
): Promise<string | null> {
  const params = { ...insertParams([row], defaults, db.channel), scope, ttl_seconds: ttlSeconds };
  const rows = await db.run(jobs.insertJobWithLock, params, on);
  return rows[0] ? String(rows[0].id) : null;
}

export async function findLockHolder(db: Runner, scope: string, on?: Queryable): Promise<string | null> {
  const rows = await db.run(jobs.findLockHolder, { scope }, on);
  return rows[0] ? String(rows[0].id) : null;
}

export async function getJob(db: Runner, id: string, on?: Queryable): Promise<Job | null> {
  const rows = await db.run(jobs.getJob, { id }, on);
  return rows[0] ? toJob(rows[0]) : null;
}

export async function getStatuses(db: Runner, ids: string[]): Promise<Map<string, string>> {
  const rows = await db.run(jobs.getStatuses, { ids });
  return new Map(rows.map((r) => [String(r.id), r.status]));
}

export async function listChildren(db: Runner, id: string): Promise<Job[]> {
  const rows = await db.run(jobs.listChildren, { id });
  return rows.map(toJob);
}

/** Lock a queue's fold key for this transaction, then read its newest job (locked too). */
export async function newestFoldedJob(
  db: Runner,
  queue: string,
  foldKey: string,
  on?: Queryable,
): Promise<FoldedJobRow | null> {
  const scope = { queue, fold_key: foldKey };
  await db.run(folds.lockFoldKey, scope, on);
  const rows = await db.run(folds.newestFoldedJob, scope, on);
  return rows[0] ?? null;
}

/** A trailing debounce's later add: the job's new data and run time. */
export async function refoldJob(
  db: Runner,
  id: string,
  dataText: string,
  delaySeconds: number,
  on?: Queryable,
): Promise<void> {
  await db.run(folds.refoldJob, { id, data: dataText, delay_seconds: delaySeconds }, on);
}

/** Where a reader of the queue's changes starts: past everything there is now. */
export async function queueChangesStart(db: Runner, queue: string): Promise<QueueChangeCursor> {
  const [row] = await db.run(changes.queueChangesStart, { queue });
  return row;
}

/** The queue's jobs that may have changed since `cursor`, with `known` ids read again. */
export async function readQueueChanges(
  db: Runner,
  queue: string,
  cursor: QueueChangeCursor,
  known: string[],
  limit: number,
): Promise<{ job: Job; added: boolean; finishedWalk: boolean; finishedKey: string | null }[]> {
  const rows = await db.run(changes.queueChanges, { ...cursor, queue, known, limit });
  return rows.map((row) => ({
    job: toJob(row),
    added: row.added,
    finishedWalk: row.finished_walk,
    finishedKey: row.finished_key,
  }));
}
