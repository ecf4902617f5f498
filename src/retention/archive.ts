import type { ArchivedJob } from '../model/archive.js';
import type { BatchCursor, DueBatch, Queryable, RetentionCapability, Storage } from '../storage/storage.js';

export type { ArchivedJob } from '../model/archive.js';

/**
 * Called with each batch of jobs the retention sweep is about to delete, inside the
 * transaction that deletes them. Write them wherever you keep history (with `tx` they
 * commit together with the delete). Throwing keeps the whole batch.
 */
export type ArchiveHook = (batch: ArchivedJob[], tx: Queryable) => Promise<void> | void;

/**
 * One batch of the sweep on the archive path: one transaction behind the retention gate
 * that locks a batch of due trees, hands it to `hook`, and deletes it. All or nothing: a
 * hook that throws rolls the transaction back, and the batch stays. Throws
 * RetentionPausedError, having done nothing, while retention is paused.
 */
export function archiveDueBatch(
  controls: Storage['controls'],
  retention: RetentionCapability,
  hook: ArchiveHook,
  batchSize: number,
  from: BatchCursor,
): Promise<DueBatch> {
  return controls.gated(async (tx) => {
    const { ids, ...batch } = await retention.lockDueBatch(batchSize, from, tx);
    if (ids.length === 0) return { ...batch, deleted: [] };
    await hook(await retention.readArchived(ids, tx), tx);
    return { ...batch, deleted: await retention.deleteJobs(ids, tx) };
  });
}
