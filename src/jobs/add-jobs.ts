import type { EngineCore } from '../engine-core.js';
import type { InsertDefaults, InsertRow, Queryable, Storage } from '../storage/storage.js';
import type { AddJobResult, ResolvedAdd } from './job-options.js';

/** Where a job sits in a workflow tree (for children created by `ctx.runChild`). */
export interface TreePlacement {
  parentId: string;
  rootId: string;
  parentStep: string;
}

/**
 * Insert resolved adds all or nothing. A batch that takes more than one writing statement
 * (a time-windowed lock beside other jobs, or `unique` keys whose holder may vanish) runs
 * in one transaction, or, inside a caller's transaction (`on`), behind a savepoint: a
 * failure leaves no job and no key taken, and the caller's transaction usable.
 */
export async function insertJobsAtomically(
  core: EngineCore,
  adds: ResolvedAdd[],
  on?: Queryable,
): Promise<AddJobResult[]> {
  if (!needsSeveralWrites(adds)) return insertResolvedJobs(core, adds, on);
  return core.storage.atomically((tx) => insertResolvedJobs(core, adds, tx), on);
}

/**
 * One add writes in one statement at most, and so does a batch of plain jobs. A `unique` job
 * in a batch may be inserted again by a second statement (when the key's holder finishes
 * before it is read), and each time-windowed lock takes its own.
 */
function needsSeveralWrites(adds: ResolvedAdd[]): boolean {
  return adds.length > 1 && adds.some((add) => add.lock !== undefined || add.uniqueKey !== undefined);
}

/**
 * Insert resolved adds: plain and `unique` ones in one statement for the whole batch,
 * those with a time-windowed lock (idempotencyKey, uniqueFor) one statement each, in the
 * order of their scopes, so two batches in concurrent transactions never wait on each other's
 * locks in opposite orders (a deadlock).
 * Not atomic by itself: see insertJobsAtomically.
 */
export async function insertResolvedJobs(
  core: EngineCore,
  adds: ResolvedAdd[],
  on?: Queryable,
  placement?: TreePlacement,
): Promise<AddJobResult[]> {
  const { storage, registry, insertDefaults } = core;
  // Every queue is resolved before the first write, so an unknown queue writes nothing.
  const rows: InsertRow[] = [];
  for (const add of adds) {
    const queue = await registry.insertOptions(add.queue, core.engineRetention, on);
    rows.push({
      queue: add.queue,
      dataText: add.dataText,
      priority: add.priority,
      max_attempts: add.maxAttempts ?? queue.maxAttempts,
      run_at: add.runAt?.toISOString(),
      delay_seconds: add.delaySeconds,
      expire_in_seconds: add.expireInSeconds,
      retention: add.jobRetention ?? queue.retention,
      unique_key: add.uniqueKey,
      parent_id: placement?.parentId,
      root_id: placement?.rootId,
      parent_step: placement?.parentStep,
    });
  }
  const results: AddJobResult[] = new Array(adds.length);
  const batch: number[] = [];
  const locked: number[] = [];
  for (let i = 0; i < adds.length; i++) (adds[i].lock ? locked : batch).push(i);
  locked.sort((a, b) => compareScopes(adds[a], adds[b]));
  for (const i of locked) {
    const lock = adds[i].lock as { scope: string; ttlSeconds: number };
    results[i] = await insertWithLock(storage, rows[i], lock.scope, lock.ttlSeconds, insertDefaults, on);
  }
  if (batch.length > 0) {
    const inserted = await storage.jobs.insertJobs(
      batch.map((i) => rows[i]),
      insertDefaults,
      on,
    );
    for (let k = 0; k < batch.length; k++) {
      const i = batch[k];
      if (inserted[k].inserted) {
        results[i] = { id: inserted[k].id, deduplicated: false };
        continue;
      }
      const holder = await storage.jobs.findUniqueHolder(rows[i].queue, rows[i].unique_key as string, on);
      // The holder can finish between the conflict and this read; insert again in that case.
      results[i] = holder
        ? { id: holder, deduplicated: true }
        : await retryOne(storage, rows[i], insertDefaults, on);
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
    const holder = await storage.jobs.findUniqueHolder(row.queue, row.unique_key as string, on);
    if (holder) return { id: holder, deduplicated: true };
  }
  throw new Error(`could not insert or find the holder of unique key ${row.unique_key}`);
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

function compareScopes(a: ResolvedAdd, b: ResolvedAdd): number {
  const x = a.lock?.scope ?? '';
  const y = b.lock?.scope ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
