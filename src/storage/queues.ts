import type { Queryable } from './driver/driver.js';
import type { Runner } from './runner.js';
import * as sql from './sql/queues.js';

/** A queue as stored: its options and whether it is paused. */
export interface StoredQueue {
  name: string;
  options: Record<string, unknown>;
  paused: boolean;
}

export async function upsertQueue(db: Runner, name: string, options: unknown): Promise<void> {
  await db.run(sql.upsertQueue, { name, options: JSON.stringify(options) });
}

export async function getQueue(db: Runner, name: string, on?: Queryable): Promise<StoredQueue | null> {
  const rows = await db.run<{ name: string }, StoredQueue>(sql.getQueue, { name }, on);
  return rows[0] ?? null;
}

export async function listQueues(db: Runner): Promise<StoredQueue[]> {
  return db.run(sql.listQueues, {});
}

export async function setQueuePaused(db: Runner, name: string, paused: boolean): Promise<boolean> {
  const rows = await db.run(sql.setQueuePaused, { name, paused, channel: db.channel });
  return rows.length > 0;
}
