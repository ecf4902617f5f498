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
import { type JobFilterParams, jobFilterParams } from '../storage/storage.js';

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
  /** Text searched, case-insensitively, in the job's data as JSON text and its error's message and name. */
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
  /** Only jobs with ids up to this one (a dry run's `throughId`); default the highest id when the call begins. */
  throughId?: string;
  /**
   * The count confirmed: when more jobs match, refuse with BulkSetGrewError (with the fresh
   * count) and change nothing; never act on more than this many.
   */
  maxMatched?: number;
}

export type BulkActionName = 'retry' | 'cancel';

/** A filter after its checks: what the selection statements are given. */
export interface CheckedBulkRequest {
  queue: string | null;
  status: JobStatus | null;
  /** The filter's conditions (the job list's own), checked again on each row it writes. */
  match: JobFilterParams;
  ids: string[] | null;
  dryRun: boolean;
  batchSize: number;
  batchWarning?: string;
  throughId: string | null;
  maxMatched: number | null;
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
  checkKnownKeys(options, 'options', ['dryRun', 'batchSize', 'throughId', 'maxMatched']);
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
  const queue = filter.queue === undefined ? null : checkString(filter.queue, 'filter.queue');
  const match = jobFilterParams(
    {
      queue,
      status,
      since,
      from: filter.from === undefined ? null : checkDate(filter.from, 'filter.from'),
      to: filter.to === undefined ? null : checkDate(filter.to, 'filter.to'),
      q: filter.q === undefined ? null : checkString(filter.q, 'filter.q'),
    },
    now,
  );
  return {
    queue,
    status,
    match,
    ids,
    dryRun: options.dryRun === undefined ? false : checkBoolean(options.dryRun, 'options.dryRun'),
    batchSize: batch.batchSize,
    batchWarning: batch.warning,
    throughId:
      options.throughId === undefined
        ? null
        : options.throughId === '0' || options.throughId === 0
          ? '0'
          : checkId(options.throughId, 'options.throughId'),
    maxMatched:
      options.maxMatched === undefined ? null : checkCount(options.maxMatched, 'options.maxMatched'),
  };
}

function checkCount(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidOptionError(field, 'a whole number of jobs, 0 or more', value);
  }
  return value;
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
