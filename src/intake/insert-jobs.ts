import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import type { FrozenRetention } from '../model/job.js';
import type { InsertDefaults, InsertRow, Queryable, Storage } from '../storage/storage.js';
import type { AddJobResult, Fold, JobRequest } from './job-request.js';

/**
 * Give each request's row what its queue decides (attempts, retention) where the job left
 * them out, and check each job's tier against its queue's tiers. Every queue is resolved
 * before the first write, so an unknown queue or tier writes nothing.
 */
export async function completeRows(core: EngineCore, requests: JobRequest[], on?: Queryable): Promise<void> {
  // Once per queue, not per row: a bulk add is usually thousands of rows of one queue, and an
  // await per row was a promise per job.
  const byQueue = new Map<string, { maxAttempts?: number; retention?: FrozenRetention; version?: string }>();
  const tiersByQueue = new Map<string, Record<string, number>>();
  // The span the add runs in, kept on every job it adds (children too: they run in their parent's).
  const trace = core.tracing?.inject() ?? null;
  for (let i = 0; i < requests.length; i++) {
    const { row } = requests[i];
    if (trace !== null) row.trace = trace;
    let queue = byQueue.get(row.queue);
    if (queue === undefined) {
      queue = await core.registry.insertOptions(row.queue, core.engineRetention, on);
      byQueue.set(row.queue, queue);
    }
    row.max_attempts ??= queue.maxAttempts;
    row.retention ??= queue.retention;
    if (queue.version !== undefined) row.version = queue.version;
    if (row.tier === undefined) continue;
    let tiers = tiersByQueue.get(row.queue);
    if (tiers === undefined) {
      tiers = (await core.registry.get(row.queue, on)).keys?.tiers ?? {};
      tiersByQueue.set(row.queue, tiers);
    }
    if (!Object.hasOwn(tiers, row.tier)) {
      const known = Object.keys(tiers);
      throw new InvalidOptionError(
        requests.length > 1 ? `jobs[${i}].tier` : 'tier',
        known.length > 0
          ? `one of the tiers of queue '${row.queue}' (${known.join(', ')})`
          : `no tier: queue '${row.queue}' defines no keys.concurrency.tiers`,
        row.tier,
      );
    }
  }
}

/**
 * Insert requests all or nothing. A batch that takes more than one writing statement (a
 * time-windowed lock beside other jobs, or `unique` keys whose holder may vanish) runs in one
 * transaction, or, inside a caller's transaction (`on`), behind a savepoint: a failure leaves
 * no job and no key taken, and the caller's transaction usable.
 */
export async function insertJobsAtomically(
  core: EngineCore,
  requests: JobRequest[],
  on?: Queryable,
): Promise<AddJobResult[]> {
  await completeRows(core, requests, on);
  if (!needsSeveralWrites(requests)) return insertCompleted(core, requests, on);
  return core.storage.atomically((tx) => insertCompleted(core, requests, tx), on);
}

/**
 * One request writes in one statement at most, and so does a batch of plain jobs. A `unique`
 * job in a batch may be inserted again by a second statement (when the key's holder finishes
 * before it is read), and each time-windowed lock takes its own. A fold, even alone, holds
 * its key's lock from its read to the commit.
 */
function needsSeveralWrites(requests: JobRequest[]): boolean {
  if (requests.some((request) => request.fold !== undefined)) return true;
  return (
    requests.length > 1 &&
    requests.some((request) => request.lock !== undefined || request.row.unique_key !== undefined)
  );
}

/**
 * Insert completed rows: plain and `unique` ones in one statement for the whole batch, those
 * with a time-windowed lock (idempotencyKey, uniqueFor) one statement each, in the order of
 * their scopes, so two batches in concurrent transactions never wait on each other's locks
 * in opposite orders (a deadlock). Not atomic by itself: see insertJobsAtomically.
 */
async function insertCompleted(
  core: EngineCore,
  requests: JobRequest[],
  on?: Queryable,
): Promise<AddJobResult[]> {
  const { storage, insertDefaults } = core;
  const results: AddJobResult[] = new Array(requests.length);
  const batch: number[] = [];
  const locked: number[] = [];
  const folded: number[] = [];
  for (let i = 0; i < requests.length; i++) {
    const { lock, fold } = requests[i];
    (fold ? folded : lock ? locked : batch).push(i);
  }
  // Folds take their keys' locks first, then the time-windowed locks, each in one order (the
  // sort is stable: adds of one key fold in the order they were given).
  folded.sort((a, b) => compareText(foldScope(requests[a]), foldScope(requests[b])));
  for (const i of folded) {
    const { row, fold } = requests[i];
    if (fold) results[i] = await insertFolded(storage, row, fold, insertDefaults, on);
  }
  locked.sort((a, b) => compareText(requests[a].lock?.scope ?? '', requests[b].lock?.scope ?? ''));
  for (const i of locked) {
    const { row, lock } = requests[i];
    // Each request in `locked` has its lock.
    if (lock)
      results[i] = await insertWithLock(storage, row, lock.scope, lock.ttlSeconds, insertDefaults, on);
  }
  if (batch.length > 0) {
    const rows = batch.map((i) => requests[i].row);
    const inserted = await storage.jobs.insertJobs(rows, insertDefaults, on);
    for (let k = 0; k < batch.length; k++) {
      const row = rows[k];
      if (inserted[k].inserted) {
        results[batch[k]] = { id: inserted[k].id, deduplicated: false };
        continue;
      }
      const holder = await uniqueHolder(storage, row, on);
      // The holder can finish between the conflict and this read; insert again in that case.
      results[batch[k]] = holder
        ? { id: holder, deduplicated: true }
        : await retryOne(storage, row, insertDefaults, on);
    }
  }
  return results;
}

async function retryOne(
  storage: Storage,
  row: InsertRow,
  defaults: InsertDefaults,
  on?: Queryable,
): Promise<AddJobResult> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [result] = await storage.jobs.insertJobs([row], defaults, on);
    if (result.inserted) return { id: result.id, deduplicated: false };
    const holder = await uniqueHolder(storage, row, on);
    if (holder) return { id: holder, deduplicated: true };
  }
  throw new Error(`could not insert or find the holder of unique key ${row.unique_key}`);
}

/** The in-flight job holding the row's unique key: none for a row without a key. */
async function uniqueHolder(storage: Storage, row: InsertRow, on?: Queryable): Promise<string | null> {
  if (row.unique_key === undefined) return null;
  return storage.jobs.findUniqueHolder(row.queue, row.unique_key, on);
}

async function insertWithLock(
  storage: Storage,
  row: InsertRow,
  scope: string,
  ttlSeconds: number,
  defaults: InsertDefaults,
  on?: Queryable,
): Promise<AddJobResult> {
  // A live lock wins; an expired one is replaced by the insert. The loop covers a lock
  // that expires or is released between the two statements.
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = await storage.jobs.insertJobWithLock(row, scope, ttlSeconds, defaults, on);
    if (id) return { id, deduplicated: false };
    const holder = await storage.jobs.findLockHolder(scope, on);
    if (holder) return { id: holder, deduplicated: true };
  }
  throw new Error(`could not take or read unique lock ${scope}`);
}

/**
 * Add a job with `debounce` or `throttle`: under its key's lock, fold into the newest job of
 * the key, or add the next one at the time the rule gives. A job that has started is never
 * changed. Must run in a transaction (the key's lock lasts until it ends).
 */
async function insertFolded(
  storage: Storage,
  row: InsertRow,
  fold: Fold,
  defaults: InsertDefaults,
  on?: Queryable,
): Promise<AddJobResult> {
  const flag = fold.kind === 'debounce' ? 'debounced' : 'throttled';
  const newest = await storage.jobs.newestFoldedJob(row.queue, row.fold_key ?? '', on);
  const folded = (id: string): AddJobResult => ({ id, deduplicated: true, [flag]: true });
  if (fold.mode === 'trailing') {
    if (newest?.unstarted) {
      const bound = fold.maxWaitSeconds - newest.since_added;
      await storage.jobs.refoldJob(newest.id, row.dataText, Math.max(0, Math.min(fold.seconds, bound)), on);
      return folded(newest.id);
    }
    row.delay_seconds = Math.min(fold.seconds, fold.maxWaitSeconds);
  } else if (fold.mode === 'leading') {
    if (newest !== null && newest.since_added < fold.seconds) return folded(newest.id);
  } else {
    if (newest?.unstarted) return folded(newest.id);
    const wait = newest?.since_started == null ? 0 : fold.seconds - newest.since_started;
    row.delay_seconds = Math.max(row.delay_seconds ?? 0, wait);
  }
  const [inserted] = await storage.jobs.insertJobs([row], defaults, on);
  return { id: inserted.id, deduplicated: false, [flag]: false };
}

function foldScope({ row }: JobRequest): string {
  return `${row.queue}\u001f${row.fold_key}`;
}

function compareText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}
