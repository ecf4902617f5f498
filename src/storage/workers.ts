import type { WorkerRecord, WorkerSummary } from '../model/worker.js';
import type { Runner } from './runner.js';
import * as sql from './sql/workers.js';

/**
 * What a worker writes about itself when it starts: its record without what the database
 * keeps (last beat, running count, gone). `startedAt` is kept when a worker registers again
 * after its row was lost; null on a first start.
 */
export type WorkerRegistration = Omit<WorkerRecord, 'startedAt' | 'heartbeatAt' | 'running' | 'gone'> & {
  startedAt: Date | null;
  /** This registration's own token. */
  instance: string;
  /** The token of a row whose process is known to be dead, to take over; else null. */
  replaces: string | null;
};

/** Who holds a worker id, as read when a registration was refused. */
export interface WorkerHolder {
  instance: string;
  host: string;
  pid: number;
  beatSecondsAgo: number;
  goneAfterSeconds: number;
}

/**
 * Write (or take over) the worker's row; returns its start time as stored, or null when a live
 * worker of another registration holds the id (nothing written).
 */
export async function registerWorker(db: Runner, worker: WorkerRegistration): Promise<Date | null> {
  const [row] = await db.run(sql.registerWorker, {
    id: worker.id,
    instance: worker.instance,
    replaces: worker.replaces,
    host: worker.host,
    pid: worker.pid,
    queues: worker.queues,
    concurrency: worker.concurrency,
    settings: JSON.stringify(worker.settings),
    heartbeat_seconds: worker.heartbeatSeconds,
    started_at: worker.startedAt,
  });
  return row ? new Date(row.started_at) : null;
}

/** The registration holding a worker id, or null when it has no row. */
export async function readWorkerHolder(db: Runner, id: string): Promise<WorkerHolder | null> {
  const [row] = await db.run(sql.readWorkerHolder, { id });
  if (!row) return null;
  return {
    instance: row.instance,
    host: row.host,
    pid: Number(row.pid),
    beatSecondsAgo: Number(row.beat_seconds_ago),
    goneAfterSeconds: Number(row.gone_after_seconds),
  };
}

/**
 * Record a beat and the running count on this registration's row; false when it has none (it
 * was deleted, or another process took the id over): the worker must register again.
 */
export async function beatWorker(
  db: Runner,
  id: string,
  instance: string,
  running: number,
): Promise<boolean> {
  return (await db.run(sql.beatWorker, { id, instance, running })).length > 0;
}

/** Delete this registration's row, never another process's under the same id. */
export async function unregisterWorker(db: Runner, id: string, instance: string): Promise<void> {
  await db.run(sql.unregisterWorker, { id, instance });
}

/** Live and gone workers counted over every row, and the retention sweeps the live ones run. */
export async function summarizeWorkers(db: Runner): Promise<WorkerSummary> {
  const [row] = await db.run(sql.summarizeWorkers, {});
  return {
    live: Number(row?.live ?? 0),
    gone: Number(row?.gone ?? 0),
    sweepers: Number(row?.sweepers ?? 0),
    intervals: (row?.intervals ?? []).map(Number),
    batchSizes: (row?.batch_sizes ?? []).map(Number),
  };
}

/** Registered workers, live ones first, then by host and start (at most `limit`). */
export async function listWorkers(db: Runner, limit = 1_000): Promise<WorkerRecord[]> {
  const rows = await db.run(sql.listWorkers, { limit });
  return rows.map((row) => ({
    id: row.id,
    host: row.host,
    pid: Number(row.pid),
    queues: row.queues,
    concurrency: Number(row.concurrency),
    settings: row.settings,
    heartbeatSeconds: Number(row.heartbeat_seconds),
    startedAt: new Date(row.started_at),
    heartbeatAt: new Date(row.heartbeat_at),
    running: Number(row.running),
    gone: row.gone === true,
  }));
}

/** Delete up to `limit` rows of workers gone for longer than `afterSeconds`; returns how many. */
export async function deleteGoneWorkers(db: Runner, afterSeconds: number, limit: number): Promise<number> {
  return (await db.run(sql.deleteGoneWorkers, { after_seconds: afterSeconds, limit })).length;
}

/** Delete up to `limit` rows of gone workers beyond the newest `keep`; returns how many. */
export async function trimGoneWorkers(db: Runner, keep: number, limit: number): Promise<number> {
  return (await db.run(sql.trimGoneWorkers, { keep, limit })).length;
}
