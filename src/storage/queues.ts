import type { FrozenRetention } from '../model/job.js';
import type { StoredQueueOptions } from '../model/queue.js';
import type { Queryable } from './driver/driver.js';
import type { Runner } from './runner.js';
import type { StoredQueue } from './sql/queues.js';
import * as sql from './sql/queues.js';

export type { StoredQueue } from './sql/queues.js';

/**
 * Store a queue's options, and the engine policy its jobs take when it sets none
 * (`engineRetention`): what the SQL add_job freezes on them (migration 19).
 */
export async function upsertQueue(
  db: Runner,
  name: string,
  options: StoredQueueOptions,
  engineRetention: FrozenRetention,
): Promise<void> {
  await db.run(sql.upsertQueue, {
    name,
    options: JSON.stringify(options),
    engine_retention: JSON.stringify(engineRetention),
  });
}

export async function getQueue(db: Runner, name: string, on?: Queryable): Promise<StoredQueue | null> {
  const rows = await db.run(sql.getQueue, { name }, on);
  return rows[0] ?? null;
}

export async function listQueues(db: Runner): Promise<StoredQueue[]> {
  return db.run(sql.listQueues, {});
}

export async function setQueuePaused(db: Runner, name: string, paused: boolean): Promise<boolean> {
  const rows = await db.run(sql.setQueuePaused, { name, paused, channel: db.channel });
  return rows.length > 0;
}
