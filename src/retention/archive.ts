import type { Queryable } from '../storage/driver/driver.js';
import type { Job } from '../storage/rows.js';
import type { CheckpointRow, SignalRow } from '../storage/workflow-storage.js';

/** One job about to be deleted by retention, with everything that goes with it. */
export interface ArchivedJob {
  job: Job;
  checkpoints: CheckpointRow[];
  signals: SignalRow[];
}

/**
 * Called with each batch of jobs the retention sweep is about to delete, inside the
 * transaction that deletes them. Write them wherever you keep history (with `tx` they
 * commit together with the delete). Throwing keeps the whole batch.
 */
export type ArchiveHook = (batch: ArchivedJob[], tx: Queryable) => Promise<void> | void;
