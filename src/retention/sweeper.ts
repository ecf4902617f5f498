import type { EngineCore } from '../engine-core.js';
import type { SweepCounts } from '../events.js';
import { toJob } from '../storage/rows.js';
import { getJobs } from '../storage/sql/jobs.js';
import * as sql from '../storage/sql/retention.js';
import type { ArchivedJob } from './archive.js';

/** Rows deleted (or, for a dry run, due) per queue and status. */
export interface SweepBreakdown {
  queue: string;
  status: string;
  count: number;
}

export interface SweepResult extends SweepCounts {
  byQueue: SweepBreakdown[];
  batches: number;
  durationMs: number;
  /** Set when a batch failed (for example the archive hook threw); earlier batches stay deleted. */
  error?: string;
}

export interface SweepRunOptions {
  batchSize: number;
  /** Also delete expired unique locks in this pass (tm.sweep does; the worker runs them apart). */
  includeUniqueLocks?: boolean;
}

type CountRow = { queue: string; status: string; n: number; tops?: number };

/**
 * One full retention pass: delete due trees in batches (each its own statement, or its own
 * transaction when an archive hook is set) until a batch comes back short, then consumed
 * signals past their window, then (optionally) expired unique locks.
 */
export async function sweepRetention(core: EngineCore, options: SweepRunOptions): Promise<SweepResult> {
  const started = new Date();
  const t0 = performance.now();
  const byQueue = new Map<string, SweepBreakdown>();
  const counts: SweepCounts = { jobs: 0, signals: 0, uniqueLocks: 0 };
  let batches = 0;
  let error: string | undefined;
  const add = (rows: CountRow[]) => {
    for (const row of rows) {
      const key = `${row.queue}\u0000${row.status}`;
      const entry = byQueue.get(key) ?? { queue: row.queue, status: row.status, count: 0 };
      entry.count += Number(row.n);
      byQueue.set(key, entry);
      counts.jobs += Number(row.n);
    }
  };
  try {
    for (;;) {
      batches++;
      const { rows, tops } = core.archive
        ? await archiveBatch(core, options.batchSize)
        : await deleteBatch(core, options.batchSize);
      add(rows);
      if (tops < options.batchSize) break;
    }
    counts.signals = await drain(core, sql.deleteConsumedSignals, options.batchSize);
    if (options.includeUniqueLocks) counts.uniqueLocks = await sweepUniqueLocks(core, options.batchSize);
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  const result: SweepResult = {
    ...counts,
    byQueue: [...byQueue.values()],
    batches,
    durationMs: performance.now() - t0,
    ...(error ? { error } : {}),
  };
  await core.storage
    .run(sql.recordSweep, {
      kind: 'retention',
      started_at: started,
      jobs: counts.jobs,
      signals: counts.signals,
      unique_locks: counts.uniqueLocks,
      detail: JSON.stringify({ byQueue: result.byQueue, batches, durationMs: result.durationMs }),
      error: error ?? null,
    })
    .catch(() => {});
  core.events.emit('sweep:finished', { ...counts, durationMs: result.durationMs, batches, error });
  core.logger.debug('retention sweep finished', {
    ...counts,
    batches,
    durationMs: Math.round(result.durationMs),
    error,
  });
  if (error) core.logger.error('retention sweep failed; the batch was kept', { error });
  return result;
}

/** Delete expired unique locks in batches until a short batch. */
export async function sweepUniqueLocks(core: EngineCore, batchSize: number): Promise<number> {
  const t0 = performance.now();
  const n = await drain(core, sql.deleteExpiredUniqueLocks, batchSize);
  core.events.emit('unique-lock-sweep:finished', { uniqueLocks: n, durationMs: performance.now() - t0 });
  return n;
}

/** What a full pass would delete now, deleting nothing. */
export async function previewSweep(core: EngineCore): Promise<SweepCounts & { byQueue: SweepBreakdown[] }> {
  const rows = await core.storage.run<Record<string, never>, CountRow>(sql.previewDueTrees, {});
  const [signals] = await core.storage.run<Record<string, never>, { n: number }>(
    sql.countConsumedSignalsDue,
    {},
  );
  const [locks] = await core.storage.run<Record<string, never>, { n: number }>(
    sql.countExpiredUniqueLocks,
    {},
  );
  const byQueue = rows.map((r) => ({ queue: r.queue, status: r.status, count: Number(r.n) }));
  return {
    jobs: byQueue.reduce((sum, r) => sum + r.count, 0),
    signals: Number(signals?.n ?? 0),
    uniqueLocks: Number(locks?.n ?? 0),
    byQueue,
  };
}

async function deleteBatch(core: EngineCore, batchSize: number): Promise<{ rows: CountRow[]; tops: number }> {
  const rows = await core.storage.run<{ batch_size: number }, CountRow>(sql.deleteDueTrees, {
    batch_size: batchSize,
  });
  return { rows, tops: rows.reduce((sum, r) => sum + Number(r.tops ?? 0), 0) };
}

/** Lock a batch, hand it to the archive hook, delete it: one transaction, all or nothing. */
async function archiveBatch(
  core: EngineCore,
  batchSize: number,
): Promise<{ rows: CountRow[]; tops: number }> {
  const { storage, workflow } = core;
  const hook = core.archive!;
  return storage.driver.transaction(async (tx) => {
    const members = await storage.run<{ batch_size: number }, { id: string; is_top: boolean }>(
      sql.lockDueTrees,
      { batch_size: batchSize },
      tx,
    );
    if (members.length === 0) return { rows: [], tops: 0 };
    const ids = members.map((m) => String(m.id));
    const jobs = (await storage.run<{ ids: string[] }, Record<string, unknown>>(getJobs, { ids }, tx)).map(
      toJob,
    );
    const batch: ArchivedJob[] = [];
    for (const job of jobs) {
      batch.push({
        job,
        checkpoints: await workflow.listCheckpoints(job.id, tx),
        signals: await workflow.listSignals(job.id, tx),
      });
    }
    await hook(batch, tx);
    const rows = await storage.run<{ ids: string[] }, CountRow>(sql.deleteJobsById, { ids }, tx);
    return { rows, tops: members.filter((m) => m.is_top).length };
  });
}

async function drain(
  core: EngineCore,
  query: typeof sql.deleteConsumedSignals | typeof sql.deleteExpiredUniqueLocks,
  batchSize: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await core.storage.run(query, { batch_size: batchSize });
    total += rows.length;
    if (rows.length < batchSize) return total;
  }
}
