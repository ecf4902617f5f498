import type { SweepRecord } from '../model/sweep.js';
import type { Runner } from './runner.js';
import * as sql from './sql/sweep-history.js';

/** A sweep to remember in the history: the record before it has an id and an end time. */
export type SweepToRecord = Omit<SweepRecord, 'id' | 'finishedAt'>;

/** How many sweep records of each kind the history keeps. */
const SWEEP_HISTORY = 500;

export async function recordSweep(db: Runner, sweep: SweepToRecord): Promise<void> {
  await db.run(sql.recordSweep, {
    kind: sweep.kind,
    started_at: sweep.startedAt,
    jobs: sweep.jobs,
    signals: sweep.signals,
    unique_locks: sweep.uniqueLocks,
    detail: JSON.stringify({
      byQueue: sweep.byQueue,
      ...(sweep.logLines ? { logLines: sweep.logLines } : {}),
      batches: sweep.batches,
      durationMs: Math.round(sweep.durationMs),
      ...(sweep.paused ? { paused: true } : {}),
    }),
    error: sweep.error,
    keep: SWEEP_HISTORY,
  });
}

/**
 * The sweep history, newest first. A plain read of the `sweeps` table, so it works on a
 * storage without the retention capability too (it then holds nothing new).
 */
export async function listSweepRecords(
  db: Runner,
  limit: number,
  kind?: SweepRecord['kind'],
): Promise<SweepRecord[]> {
  const rows = await db.run(sql.listSweeps, {
    limit,
    kind: kind ?? null,
  });
  return rows.map((r) => {
    const detail: sql.SweepDetail = r.detail ?? {};
    return {
      id: String(r.id),
      kind: r.kind,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      jobs: Number(r.jobs),
      signals: Number(r.signals),
      ...(detail.logLines ? { logLines: Number(detail.logLines) } : {}),
      uniqueLocks: Number(r.unique_locks),
      byQueue: detail.byQueue ?? [],
      batches: Number(detail.batches ?? 0),
      durationMs: Number(detail.durationMs ?? 0),
      error: r.error ?? null,
      paused: detail.paused === true,
    };
  });
}
