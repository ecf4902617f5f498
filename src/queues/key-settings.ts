import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError } from '../errors.js';
import { MAX_KEY_LENGTH } from '../intake/job-options.js';
import type { KeyInfo, KeyLimit } from '../model/keys.js';
import { checkBoolean, checkInteger, checkKnownFields, checkObject, checkString } from '../options/check.js';
import type { StoredQueue } from '../storage/storage.js';
import { checkLimit } from './keys-rule.js';

/** Keys `listKeys` returns when its `limit` is not given. */
export const LIST_KEYS_DEFAULT_LIMIT = 100;

/** What `tm.listKeys` takes. */
export interface ListKeysOptions {
  /** Only keys with pending jobs that cannot start now: paused, or at their limit. */
  blocked?: boolean;
  /** At most this many rows (1 to 1,000; default `LIST_KEYS_DEFAULT_LIMIT`, 100). */
  limit?: number;
  /** The last key of the previous page: rows start after it. */
  after?: string;
}

/** The stored queue (its options as every claim reads them); QueueNotFoundError when none. */
async function storedQueue(core: EngineCore, name: unknown): Promise<StoredQueue> {
  const queue = checkString(name, 'queue');
  await core.registry.flush();
  const stored = await core.storage.queues.getQueue(queue);
  if (!stored) throw new QueueNotFoundError(queue);
  return stored;
}

/** `tm.setKeyLimit`: a persisted override of one key's concurrency, or null to drop it. */
export async function setKeyLimit(
  core: EngineCore,
  queue: unknown,
  key: unknown,
  limit: KeyLimit | null,
): Promise<void> {
  const checkedKey = checkString(key, 'key', { max: MAX_KEY_LENGTH });
  let concurrency: number | null = null;
  if (limit !== null) {
    const given = checkObject(limit, 'limit');
    checkKnownFields(given, 'limit', ['concurrency']);
    concurrency = checkLimit(given.concurrency, 'limit.concurrency');
  }
  const stored = await storedQueue(core, queue);
  await core.storage.keys.setKeyLimit(stored.name, checkedKey, concurrency);
}

/** `tm.pauseKey` and `tm.resumeKey`. */
export async function setKeyPaused(
  core: EngineCore,
  queue: unknown,
  key: unknown,
  paused: boolean,
): Promise<void> {
  const checkedKey = checkString(key, 'key', { max: MAX_KEY_LENGTH });
  const stored = await storedQueue(core, queue);
  await core.storage.keys.setKeyPaused(stored.name, checkedKey, paused);
}

/** `tm.listKeys`: a queue's keys with unfinished jobs or settings, keyset-paged by key. */
export async function listKeys(
  core: EngineCore,
  queue: unknown,
  options: ListKeysOptions = {},
): Promise<KeyInfo[]> {
  const given = checkObject(options, 'options');
  checkKnownFields(given, 'options', ['blocked', 'limit', 'after']);
  const blocked = given.blocked === undefined ? false : checkBoolean(given.blocked, 'options.blocked');
  const limit =
    given.limit === undefined
      ? LIST_KEYS_DEFAULT_LIMIT
      : checkInteger(given.limit, 'options.limit', 1, 1_000);
  const after =
    given.after === undefined ? null : checkString(given.after, 'options.after', { max: MAX_KEY_LENGTH });
  const stored = await storedQueue(core, queue);
  const rule = stored.options.keys ? JSON.stringify(stored.options.keys) : null;
  const rows = await core.storage.keys.listKeys(stored.name, { after, limit, blocked, rule });
  return rows.map((row) => ({
    key: row.key,
    tier: row.tier,
    active: row.active,
    pending: row.pending,
    limit: row.key_limit,
    paused: row.paused,
    oldestPendingAt: row.oldest_pending_at,
  }));
}
