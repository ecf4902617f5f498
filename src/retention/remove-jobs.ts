import type { EngineCore } from '../engine-core.js';
import { HoldsChangingError, InvalidOptionError, RetentionPausedError } from '../errors.js';
import { FINISHED_STATUSES } from '../job-status.js';
import { isOneOf } from '../model/guards.js';
import { checkBatchSize, DEFAULT_BATCH_SIZE } from '../options/batch-size.js';
import { checkBoolean, checkKnownKeys, checkObject, checkSeconds, checkString } from '../options/check.js';
import { FIRST_BATCH } from '../storage/storage.js';
import { BatchPace } from './batch-pace.js';
import { reclaim, retentionOf } from './capability.js';

/** Options of `tm.removeJobs` (manual purge). */
export interface RemoveJobsOptions {
  queue?: string;
  /** Finished statuses to remove; default all four. In-flight statuses are refused. */
  statuses?: string[];
  /** Only jobs finished at least this long ago. Default 0 (any finished job). */
  olderThanSeconds?: number;
  /** Trees (a job with its descendants) per delete statement, 1..10000 (larger values are clamped). Default 1000. */
  batchSize?: number;
  /** Count what would be removed, delete nothing. */
  dryRun?: boolean;
  /** Called after each batch with the running total (for progress lines). */
  onProgress?: (deletedSoFar: number) => void;
}

interface ResolvedRemove {
  queue: string | null;
  statuses: string[];
  older_than_seconds: number;
  batchSize: number;
  /** Set when the batch size was clamped: say it once. */
  batchWarning?: string;
}

export function resolveRemoveJobs(input: unknown): ResolvedRemove & { dryRun: boolean } {
  const options = checkObject(input ?? {}, 'options');
  checkKnownKeys(options, '', ['queue', 'statuses', 'olderThanSeconds', 'batchSize', 'dryRun', 'onProgress']);
  let statuses: string[] = [...FINISHED_STATUSES];
  if (options.statuses !== undefined) {
    if (!Array.isArray(options.statuses) || options.statuses.length === 0) {
      throw new InvalidOptionError('statuses', 'a non-empty array of finished statuses', options.statuses);
    }
    statuses = options.statuses.map((status: unknown, i) => {
      if (!isOneOf(FINISHED_STATUSES, status)) {
        throw new InvalidOptionError(
          `statuses[${i}]`,
          `a finished status (${FINISHED_STATUSES.join(', ')})`,
          status,
        );
      }
      return status;
    });
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new InvalidOptionError('onProgress', 'a function', options.onProgress);
  }
  const batch =
    options.batchSize === undefined
      ? { batchSize: DEFAULT_BATCH_SIZE }
      : checkBatchSize(options.batchSize, 'batchSize');
  return {
    queue: options.queue === undefined ? null : checkString(options.queue, 'queue'),
    statuses,
    older_than_seconds:
      options.olderThanSeconds === undefined ? 0 : checkSeconds(options.olderThanSeconds, 'olderThanSeconds'),
    batchSize: batch.batchSize,
    batchWarning: batch.warning,
    dryRun: options.dryRun === undefined ? false : checkBoolean(options.dryRun, 'dryRun'),
  };
}

/**
 * Loop bounded deletes, each its own transaction, walking the finished_at index from a
 * cursor until a batch comes back short (paced by BatchPace: smaller batches while they
 * are slow); returns the total. The call as a whole is not
 * atomic: a failure keeps what earlier batches deleted. While retention is paused it is
 * refused with RetentionPausedError (a dry run still counts); a pause placed while it
 * runs stops it before its next batch, with the same error. A batch that keeps meeting
 * holds changed after its snapshot gives up with HoldsChangingError (never an untyped error).
 */
export async function removeJobs(core: EngineCore, input: RemoveJobsOptions = {}): Promise<number> {
  const { batchSize, batchWarning, dryRun, queue, statuses, older_than_seconds } = resolveRemoveJobs(input);
  const retention = retentionOf(core, 'removeJobs');
  if (batchWarning) core.once.warn(batchWarning, batchWarning);
  const filter = { queue, statuses, olderThanSeconds: older_than_seconds };
  if (dryRun) return retention.countPurgeable(filter);
  let total = 0;
  let cursor = FIRST_BATCH;
  const pace = new BatchPace(batchSize);
  try {
    for (;;) {
      const { value: batch, size } = await pace.run((n) => retention.purgeBatch(filter, n, cursor));
      total += batch.deleted;
      input.onProgress?.(total);
      if (batch.scanned < size) return total;
      cursor = batch.next;
    }
  } catch (error) {
    if (error instanceof RetentionPausedError && total > 0) {
      throw new RetentionPausedError(error.reason, error.since, total);
    }
    if (error instanceof HoldsChangingError && total > 0) {
      throw new HoldsChangingError(Number(error.details.attempts), total);
    }
    throw error;
  } finally {
    if (total > 0) await reclaim(retention, core.logger);
  }
}
