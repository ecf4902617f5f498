import type { WorkerRecord } from '../model/worker.js';
import type { Runner } from './runner.js';
import * as sql from './sql/workers.js';

/**
 * What a worker writes about itself when it starts: its record without what the database
 * keeps (last beat, running count, gone). `startedAt` is kept when a worker registers again
 * after its row was lost; null on a first start.
 */
export type WorkerRegistration = Omit<WorkerRecord, 'startedAt' | 'heartbeatAt' | 'running' | 'gone'> & {
  startedAt: Date | null;
};

/** Write (or take over) the worker's row; returns its start time as stored. */
export async function registerWorker(db: Runner, worker: WorkerRegistration): Promise<Date> {
  const [row] = await db.run(sql.registerWorker, {
    id: worker.id,
    host: worker.host,
    pid: worker.pid,
    queues: worker.queues,
    concurrency: worker.concurrency,
    settings: JSON.stringify(worker.settings),
    heartbeat_seconds: worker.heartbeatSeconds,
    started_at: worker.startedAt,
  });
  return new Date(row.started_at);
}

/** Record a beat and the running count; false when the worker has no row (it must register again). */
export async function beatWorker(db: Runner, id: string, running: number): Promise<boolean> {
  return (await db.run(sql.beatWorker, { id, running })).length > 0;
}

export async function unregisterWorker(db: Runner, id: string): Promise<void> {
  await db.run(sql.unregisterWorker, { id });
}

/** Registered workers, live and gone, by host and start (at most `limit`). */
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
