import type { EngineCore } from '../engine-core.js';
import { HoldsChangingError, InvalidOptionError, RetentionPausedError } from '../errors.js';
import { FINISHED_STATUSES, type FinishedStatus } from '../job-status.js';
import { isOneOf } from '../model/guards.js';
import { boolean, custom, seconds, text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { AUDIT_FIELDS, batchSizeField, functionField } from '../options/shared-fields.js';
import { FIRST_BATCH } from '../storage/storage.js';
import { BatchPace } from './batch-pace.js';
import { reclaim, retentionOf } from './capability.js';

/** `tm.removeJobs`'s options (manual purge), declared once. */
export const removeJobsOptions = new OptionSet('options', {
  queue: text(200, { description: 'only jobs of this queue', docDefault: 'every queue' }),
  statuses: custom<string[], FinishedStatus[]>({
    expected: 'a non-empty array of finished statuses',
    docType: '`string[]`',
    docDefault: 'all four finished statuses',
    description: 'finished statuses to remove; in-flight statuses are refused',
    jsonSchema: { type: 'array', minItems: 1, items: { enum: [...FINISHED_STATUSES] } },
    check: checkFinishedStatuses,
  }),
  olderThanSeconds: seconds(
    {},
    { default: 0, description: 'only jobs finished at least this long ago (0: any finished job)' },
  ),
  batchSize: batchSizeField('trees (a job with its descendants) per delete statement'),
  dryRun: boolean({ default: false, description: 'count what would be removed, delete nothing' }),
  onProgress: functionField<(deletedSoFar: number) => void>({
    expected: 'a function',
    docType: '`(deletedSoFar: number) => void`',
    description: 'called after each batch with the running total (for progress lines)',
  }),
  ...AUDIT_FIELDS,
});

/** Options of `tm.removeJobs` (manual purge). */
export type RemoveJobsOptions = OptionsOf<typeof removeJobsOptions.properties>;

function checkFinishedStatuses(value: unknown, field: string): FinishedStatus[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidOptionError(field, 'a non-empty array of finished statuses', value);
  }
  return value.map((status: unknown, i) => {
    if (!isOneOf(FINISHED_STATUSES, status)) {
      throw new InvalidOptionError(
        `${field}[${i}]`,
        `a finished status (${FINISHED_STATUSES.join(', ')})`,
        status,
      );
    }
    return status;
  });
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
  const warnings: string[] = [];
  const options = removeJobsOptions.read(input ?? {}, '', warnings);
  return {
    queue: options.queue ?? null,
    statuses: options.statuses ?? [...FINISHED_STATUSES],
    older_than_seconds: options.olderThanSeconds,
    batchSize: options.batchSize,
    batchWarning: warnings[0],
    dryRun: options.dryRun,
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
