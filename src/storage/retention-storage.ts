import { RetentionPausedError } from '../errors.js';
import type { ArchivedJob, ArchiveHook } from '../retention/archive.js';
import type { SweepBreakdown, SweepRecord } from '../retention/sweep-types.js';
import { type JobRow, toDate, toJob } from './rows.js';
import { getJobs } from './sql/jobs.js';
import * as sql from './sql/retention.js';
import type { Storage } from './storage.js';

/** Where the next batch of a sweep or purge starts (a keyset cursor over its index). */
export interface BatchCursor {
  after: string;
  afterId: string;
}

export const FIRST_BATCH: BatchCursor = { after: sql.CURSOR_START.after, afterId: sql.CURSOR_START.after_id };

/** One batch of the due-tree sweep. */
export interface DueBatch {
  /** Tops looked at; fewer than the batch size means the due set is drained. */
  scanned: number;
  next: BatchCursor;
  /** Jobs deleted per queue and status. */
  deleted: SweepBreakdown[];
}

/** Which finished jobs a manual purge removes. */
export interface PurgeFilter {
  queue: string | null;
  statuses: string[];
  olderThanSeconds: number;
}

/** A sweep to remember in the history. */
export interface SweepToRecord {
  kind: SweepRecord['kind'];
  startedAt: Date;
  jobs: number;
  signals: number;
  uniqueLocks: number;
  byQueue: SweepBreakdown[];
  batches: number;
  durationMs: number;
  error: string | null;
  paused: boolean;
}

/** How many sweep records of each kind the history keeps. */
const SWEEP_HISTORY = 500;

/**
 * The retention capability of a storage: deleting due rows. It is optional (SPEC section
 * 7): a storage without it keeps working, and workers then log one warning and run no
 * sweep. Each deleting method is one statement behind the retention gate (sql/gate.ts),
 * or on the archive path one transaction: the gate, the lock, the hook and the delete. All
 * throw RetentionPausedError while retention is paused, having deleted nothing.
 */
export interface RetentionCapability {
  /** Delete one batch of due trees. */
  deleteDueBatch(batchSize: number, from: BatchCursor): Promise<DueBatch>;
  /** Lock one batch of due trees, hand it to `hook`, delete it: one transaction, all or nothing. */
  archiveDueBatch(batchSize: number, from: BatchCursor, hook: ArchiveHook): Promise<DueBatch>;
  /** Delete up to `batchSize` consumed signals past their window; returns how many. */
  deleteConsumedSignals(batchSize: number): Promise<number>;
  /** Delete up to `batchSize` expired unique locks; returns how many. */
  deleteExpiredUniqueLocks(batchSize: number): Promise<number>;
  /** What a full pass would delete now. */
  preview(): Promise<{ byQueue: SweepBreakdown[]; signals: number; uniqueLocks: number }>;
  /** One batch of a manual purge. */
  purgeBatch(
    filter: PurgeFilter,
    batchSize: number,
    from: BatchCursor,
  ): Promise<{ scanned: number; next: BatchCursor; deleted: number }>;
  countPurgeable(filter: PurgeFilter): Promise<number>;
  recordSweep(sweep: SweepToRecord): Promise<void>;
  /** Give deleted rows' space back where nothing else will (embedded PGlite has no autovacuum). */
  reclaimSpace(): Promise<void>;
}

type CursorRow = { scanned: number; after: string | null; after_id: string | null };

/** The retention capability over Tidemark's own schema, on either driver. */
export class PostgresRetention implements RetentionCapability {
  constructor(private readonly storage: Storage) {}

  async deleteDueBatch(batchSize: number, from: BatchCursor): Promise<DueBatch> {
    const row = await throughGate(() =>
      this.storage.run<sql.BatchParams, CursorRow & GateRow & { counts: CountRow[] }>(
        sql.deleteDueTrees(batchSize),
        cursorParams(from),
      ),
    );
    return { scanned: Number(row.scanned), next: nextCursor(row, from), deleted: toBreakdown(row.counts) };
  }

  async archiveDueBatch(batchSize: number, from: BatchCursor, hook: ArchiveHook): Promise<DueBatch> {
    const { storage } = this;
    return storage.controls.gated(async (tx) => {
      const [row] = await storage.run<sql.BatchParams, CursorRow & { ids: string[] }>(
        sql.lockDueTrees(batchSize),
        cursorParams(from),
        tx,
      );
      const batch = { scanned: Number(row.scanned), next: nextCursor(row, from) };
      const ids = row.ids.map(String);
      if (ids.length === 0) return { ...batch, deleted: [] };
      const [jobs, checkpoints, signals] = [
        await storage.run<{ ids: string[] }, JobRow>(getJobs, { ids }, tx),
        await storage.run<{ ids: string[] }, Record<string, unknown>>(sql.checkpointsOfJobs, { ids }, tx),
        await storage.run<{ ids: string[] }, Record<string, unknown>>(sql.signalsOfJobs, { ids }, tx),
      ];
      await hook(toArchived(jobs, checkpoints, signals), tx);
      const counts = await storage.run<{ ids: string[] }, CountRow>(sql.deleteJobsById, { ids }, tx);
      return { ...batch, deleted: toBreakdown(counts) };
    });
  }

  async deleteConsumedSignals(batchSize: number): Promise<number> {
    const row = await throughGate(() =>
      this.storage.run<Record<string, never>, GateRow & { n: number }>(
        sql.deleteConsumedSignals(batchSize),
        {},
      ),
    );
    return Number(row.n);
  }

  async deleteExpiredUniqueLocks(batchSize: number): Promise<number> {
    const row = await throughGate(() =>
      this.storage.run<Record<string, never>, GateRow & { n: number }>(
        sql.deleteExpiredUniqueLocks(batchSize),
        {},
      ),
    );
    return Number(row.n);
  }

  async preview(): Promise<{ byQueue: SweepBreakdown[]; signals: number; uniqueLocks: number }> {
    const rows = await this.storage.run<Record<string, never>, CountRow>(sql.previewDueTrees, {});
    const [signals] = await this.storage.run<Record<string, never>, { n: number }>(
      sql.countConsumedSignalsDue,
      {},
    );
    const [locks] = await this.storage.run<Record<string, never>, { n: number }>(
      sql.countExpiredUniqueLocks,
      {},
    );
    return { byQueue: toBreakdown(rows), signals: Number(signals.n), uniqueLocks: Number(locks.n) };
  }

  async purgeBatch(filter: PurgeFilter, batchSize: number, from: BatchCursor) {
    const row = await throughGate(() =>
      this.storage.run<sql.PurgeParams & sql.BatchParams, CursorRow & GateRow & { n: number }>(
        sql.purgeFinished(batchSize),
        { ...purgeParams(filter), ...cursorParams(from) },
      ),
    );
    return { scanned: Number(row.scanned), next: nextCursor(row, from), deleted: Number(row.n) };
  }

  async countPurgeable(filter: PurgeFilter): Promise<number> {
    const [row] = await this.storage.run<sql.PurgeParams, { n: number }>(
      sql.countPurgeable,
      purgeParams(filter),
    );
    return Number(row.n);
  }

  async recordSweep(sweep: SweepToRecord): Promise<void> {
    await this.storage.run(sql.recordSweep, {
      kind: sweep.kind,
      started_at: sweep.startedAt,
      jobs: sweep.jobs,
      signals: sweep.signals,
      unique_locks: sweep.uniqueLocks,
      detail: JSON.stringify({
        byQueue: sweep.byQueue,
        batches: sweep.batches,
        durationMs: Math.round(sweep.durationMs),
        ...(sweep.paused ? { paused: true } : {}),
      }),
      error: sweep.error,
      keep: SWEEP_HISTORY,
    });
  }

  async reclaimSpace(): Promise<void> {
    if (this.storage.driver.kind !== 'pglite') return;
    await this.storage.driver.exec(sql.vacuumSweptTables.text(this.storage.schema));
  }
}

/**
 * The sweep history, newest first. A plain read of the `sweeps` table, so it works on a
 * storage without the retention capability too (it then holds nothing new).
 */
export async function listSweepRecords(
  storage: Storage,
  limit: number,
  kind?: SweepRecord['kind'],
): Promise<SweepRecord[]> {
  const rows = await storage.run<{ limit: number; kind: string | null }, Record<string, unknown>>(
    sql.listSweeps,
    { limit, kind: kind ?? null },
  );
  return rows.map((r) => {
    const detail = (r.detail ?? {}) as {
      byQueue?: SweepBreakdown[];
      batches?: number;
      durationMs?: number;
      paused?: boolean;
    };
    return {
      id: String(r.id),
      kind: r.kind as SweepRecord['kind'],
      startedAt: r.started_at as Date,
      finishedAt: r.finished_at as Date,
      jobs: Number(r.jobs),
      signals: Number(r.signals),
      uniqueLocks: Number(r.unique_locks),
      byQueue: detail.byQueue ?? [],
      batches: Number(detail.batches ?? 0),
      durationMs: Number(detail.durationMs ?? 0),
      error: (r.error ?? null) as string | null,
      paused: detail.paused === true,
    };
  });
}

type CountRow = { queue: string; status: string; n: number };

/** The retention gate's columns in a deleting statement's result (sql/gate.ts). */
type GateRow = {
  paused: boolean | null;
  fresh: boolean | null;
  paused_reason: string | null;
  paused_at: unknown;
};

/** A statement that met a hold placed after its snapshot runs again; more times than this is an error. */
const GATE_ATTEMPTS = 20;

/**
 * Run a statement that carries the retention gate. While retention is paused it deleted
 * nothing: RetentionPausedError. When a hold was placed after its snapshot was taken it
 * deleted nothing either: it runs again, with a new snapshot.
 */
async function throughGate<Row extends GateRow>(run: () => Promise<Row[]>): Promise<Row> {
  for (let attempt = 1; ; attempt++) {
    const [row] = await run();
    if (row.paused) throw new RetentionPausedError(row.paused_reason, toDate(row.paused_at));
    if (row.fresh) return row;
    if (attempt >= GATE_ATTEMPTS) {
      throw new Error(`retention holds changed ${GATE_ATTEMPTS} times while one batch tried to delete`);
    }
  }
}

function cursorParams(from: BatchCursor): sql.BatchParams {
  return { after: from.after, after_id: from.afterId };
}

function nextCursor(row: CursorRow, from: BatchCursor): BatchCursor {
  return row.after === null || row.after_id === null ? from : { after: row.after, afterId: row.after_id };
}

function purgeParams(filter: PurgeFilter): sql.PurgeParams {
  return { queue: filter.queue, statuses: filter.statuses, older_than_seconds: filter.olderThanSeconds };
}

function toBreakdown(rows: CountRow[]): SweepBreakdown[] {
  return rows.map((r) => ({ queue: r.queue, status: r.status, count: Number(r.n) }));
}

function toArchived(
  jobs: JobRow[],
  checkpoints: Record<string, unknown>[],
  signals: Record<string, unknown>[],
): ArchivedJob[] {
  const byId = new Map<string, ArchivedJob>();
  for (const row of jobs) byId.set(String(row.id), { job: toJob(row), checkpoints: [], signals: [] });
  for (const c of checkpoints) {
    byId.get(String(c.job_id))?.checkpoints.push({
      name: c.name as string,
      kind: c.kind as string,
      output: c.output,
      createdAt: c.created_at as Date,
    });
  }
  for (const s of signals) {
    byId.get(String(s.job_id))?.signals.push({
      id: String(s.id),
      name: s.name as string,
      payload: s.payload,
      createdAt: s.created_at as Date,
      consumedAt: (s.consumed_at ?? null) as Date | null,
      consumedBy: (s.consumed_by ?? null) as string | null,
      purgeAfter: (s.purge_after ?? null) as Date | null,
      state: s.consumed_at ? 'consumed' : 'pending',
    });
  }
  return [...byId.values()].sort((a, b) => Number(a.job.id) - Number(b.job.id));
}
