import type { Runner } from './runner.js';
import type { KeyRow } from './sql/keys.js';
import * as sql from './sql/keys.js';

export type { KeyRow } from './sql/keys.js';

/** Set (a number) or drop (null) a key's override concurrency. */
export async function setKeyLimit(
  db: Runner,
  queue: string,
  key: string,
  concurrency: number | null,
): Promise<void> {
  const params = { queue, key, channel: db.channel };
  if (concurrency === null) await db.run(sql.clearKeyLimit, params);
  else await db.run(sql.setKeyLimit, { ...params, concurrency });
}

export async function setKeyPaused(db: Runner, queue: string, key: string, paused: boolean): Promise<void> {
  if (paused) await db.run(sql.pauseKey, { queue, key });
  else await db.run(sql.resumeKey, { queue, key, channel: db.channel });
}

export async function listKeys(
  db: Runner,
  queue: string,
  options: { after: string | null; limit: number; blocked: boolean; rule: string | null },
): Promise<KeyRow[]> {
  return db.run(sql.listKeys, { queue, ...options });
}
