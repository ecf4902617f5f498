import { InvalidOptionError } from '../errors.js';
import { FINISHED_STATUSES, IN_FLIGHT_STATUSES, isJobStatus, type JobStatus } from '../job-status.js';
import { checkBatchSize } from '../options/batch-size.js';
import {
  checkBoolean,
  checkDate,
  checkId,
  checkKnownKeys,
  checkObject,
  checkSeconds,
  checkString,
} from '../options/check.js';

/** What `tm.retryJobs` / `tm.cancelJobs` act on: every job matching all the given fields. */
export interface BulkJobFilter {
  queue?: string;
  /** The status to act on; required unless `ids` is given. Retry takes a finished status or `retry`, cancel an in-flight one. */
  status?: JobStatus;
  /** Created within the last N seconds (instead of `from`/`to`). */
  since?: number;
  /** Created at or after this time. */
  from?: Date | string;
  /** Created before this time. */
  to?: Date | string;
  /** Text searched, case-insensitively, in the job's data as JSON text. */
  q?: string;
  /** Only these jobs (at most 1000), still subject to the other fields. */
  ids?: string[];
}

/** Options of `tm.retryJobs` / `tm.cancelJobs`. */
export interface BulkActionOptions {
  /** Count the matching jobs; change nothing. */
  dryRun?: boolean;
  /** Jobs chosen per batch, 1..10000 (larger values are clamped). Default 500. */
  batchSize?: number;
}

export type BulkActionName = 'retry' | 'cancel';

/** A filter after its checks: what the selection statements are given. */
export interface CheckedBulkRequest {
  queue: string | null;
  status: JobStatus | null;
  from: Date | null;
  to: Date | null;
  pattern: string | null;
  ids: string[] | null;
  dryRun: boolean;
  batchSize: number;
  batchWarning?: string;
}

export const DEFAULT_BULK_BATCH_SIZE = 500;
export const MAX_BULK_IDS = 1000;

/** The statuses each action can change: anything else would be refused job by job. */
export const ACTIONABLE: Record<BulkActionName, readonly JobStatus[]> = {
  retry: [...FINISHED_STATUSES, 'retry'],
  cancel: IN_FLIGHT_STATUSES,
};

/** Check a bulk request; InvalidOptionError names the bad field, before anything is read. */
export function checkBulkRequest(
  action: BulkActionName,
  filterInput: unknown,
  optionsInput: unknown,
  now = Date.now(),
): CheckedBulkRequest {
  const filter = checkObject(filterInput, 'filter');
  checkKnownKeys(filter, 'filter', ['queue', 'status', 'since', 'from', 'to', 'q', 'ids']);
  const options = checkObject(optionsInput ?? {}, 'options');
  checkKnownKeys(options, 'options', ['dryRun', 'batchSize']);
  const ids = filter.ids === undefined ? null : checkIds(filter.ids);
  const status = checkStatus(action, filter.status, ids !== null);
  if (filter.since !== undefined && (filter.from !== undefined || filter.to !== undefined)) {
    throw new InvalidOptionError('filter.since', 'either since or from/to, not both', filter.since);
  }
  const since =
    filter.since === undefined
      ? null
      : checkSeconds(filter.since, 'filter.since', { min: 0, exclusiveMin: true });
  const batch =
    options.batchSize === undefined
      ? { batchSize: DEFAULT_BULK_BATCH_SIZE }
      : checkBatchSize(options.batchSize, 'options.batchSize');
  const q = filter.q === undefined ? null : checkString(filter.q, 'filter.q');
  return {
    queue: filter.queue === undefined ? null : checkString(filter.queue, 'filter.queue'),
    status,
    from:
      since !== null
        ? new Date(now - since * 1000)
        : filter.from === undefined
          ? null
          : checkDate(filter.from, 'filter.from'),
    to: filter.to === undefined ? null : checkDate(filter.to, 'filter.to'),
    pattern: q === null ? null : `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
    ids,
    dryRun: options.dryRun === undefined ? false : checkBoolean(options.dryRun, 'options.dryRun'),
    batchSize: batch.batchSize,
    batchWarning: batch.warning,
  };
}

function checkStatus(action: BulkActionName, value: unknown, hasIds: boolean): JobStatus | null {
  const allowed = ACTIONABLE[action];
  if (value === undefined) {
    if (hasIds) return null;
    // Without a status a filter such as "queue q" would retry every completed job too.
    throw new InvalidOptionError(
      'filter.status',
      `the status to ${action} (${allowed.join(', ')}), or ids`,
      value,
    );
  }
  if (!isJobStatus(value) || !allowed.includes(value)) {
    throw new InvalidOptionError(
      'filter.status',
      `a status ${action} can act on (${allowed.join(', ')})`,
      value,
    );
  }
  return value;
}

function checkIds(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_BULK_IDS) {
    throw new InvalidOptionError('filter.ids', `an array of 1 to ${MAX_BULK_IDS} job ids`, value);
  }
  return [...new Set(value.map((id, i) => checkId(id, `filter.ids[${i}]`)))];
}
