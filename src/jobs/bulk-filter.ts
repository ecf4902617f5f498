import { InvalidOptionError } from '../errors.js';
import { MAX_KEY_LENGTH } from '../intake/job-options.js';
import { ALL_STATUSES, FINISHED_STATUSES, IN_FLIGHT_STATUSES, type JobStatus } from '../job-status.js';
import { isObject } from '../model/guards.js';
import { boolean, custom, either, literal, seconds, text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import {
  AUDIT_FIELDS,
  batchSizeField,
  dateField,
  idBoundField,
  idsField,
  tagsField,
} from '../options/shared-fields.js';
import { type JobFilterFields, type JobFilterParams, jobFilterParams } from '../storage/storage.js';
import { checkForkPoint, type ForkPoint } from './fork-job.js';

export const DEFAULT_BULK_BATCH_SIZE = 500;
export const MAX_BULK_IDS = 1000;

/** What `tm.retryJobs` / `tm.cancelJobs` act on, declared once: every job matching all the given fields. */
export const bulkFilterOptions = new OptionSet('filter', {
  queue: text(200, { description: 'only jobs of this queue' }),
  status: either(
    ALL_STATUSES.map((status) => literal(status)),
    {
      expected: 'a job status',
      docType: '`JobStatus`',
      description:
        'only jobs in this status. The bulk actions require it unless `ids` is given: retry takes a finished status or `retry`, cancel an in-flight one',
    },
  ),
  since: seconds(
    { exclusiveMin: true },
    { description: 'created within the last N seconds (instead of `createdAfter`/`createdBefore`)' },
  ),
  createdAfter: dateField({ description: 'created at or after this time', docDefault: 'none' }),
  createdBefore: dateField({ description: 'created before this time', docDefault: 'none' }),
  from: dateField({ description: 'the same as `createdAfter`', docDefault: 'none' }),
  to: dateField({ description: 'the same as `createdBefore`', docDefault: 'none' }),
  tags: tagsField('only jobs carrying every one of these tags'),
  key: text(MAX_KEY_LENGTH, { description: 'only jobs of this concurrency key' }),
  version: text(100, {
    description:
      "only jobs added under this queue `version` (say, a workflow's in-flight runs of an old one)",
  }),
  q: text(200, {
    description:
      "text searched, case-insensitively, in the job's data as JSON text and its error's message and name",
  }),
  ids: idsField(MAX_BULK_IDS, 'only these jobs, still subject to the other fields'),
});

/** What `tm.retryJobs` / `tm.cancelJobs` act on: every job matching all the given fields. */
export type BulkJobFilter = OptionsOf<typeof bulkFilterOptions.properties>;

/** `tm.retryJobs` / `tm.cancelJobs`'s options, declared once. */
export const bulkActionOptions = new OptionSet('options', {
  dryRun: boolean({ default: false, description: 'count the matching jobs; change nothing' }),
  batchSize: batchSizeField('jobs chosen per batch', DEFAULT_BULK_BATCH_SIZE),
  throughId: idBoundField({
    what: 'a job id',
    docDefault: 'the highest id when the call begins',
    description: "only jobs with ids up to this one (a dry run's `throughId`)",
  }),
  maxMatched: custom<number>({
    expected: 'a whole number of jobs, 0 or more',
    docType: '`number` (whole, 0 or more)',
    description:
      'the count confirmed: when more jobs match, refuse with `BulkSetGrewError` (with the fresh count) and change nothing; never act on more than this many',
    jsonSchema: { type: 'integer', minimum: 0 },
    check: (value, field) => {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw new InvalidOptionError(field, 'a whole number of jobs, 0 or more', value);
      }
      return value;
    },
  }),
  ...AUDIT_FIELDS,
});

/** Options of `tm.retryJobs`, `tm.cancelJobs` and `tm.runJobsNow`. */
export type BulkActionOptions = OptionsOf<typeof bulkActionOptions.properties>;

/** The bulk actions that change the state of the jobs they match (the CLI's and the dashboard's). */
export type StateActionName = 'retry' | 'cancel' | 'run-now';

/** Every bulk action: those that change the matching jobs, and `fork`, which adds a copy of each. */
export type BulkActionName = StateActionName | 'fork';

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
  /** For a fork: where each fork starts again. */
  fork: ForkPoint | null;
}

/** The statuses each action can change: anything else would be refused job by job. */
export const ACTIONABLE: Record<BulkActionName, readonly JobStatus[]> = {
  retry: [...FINISHED_STATUSES, 'retry'],
  cancel: IN_FLIGHT_STATUSES,
  'run-now': ['pending', 'retry'],
  fork: FINISHED_STATUSES,
};

/** Check a bulk request; InvalidOptionError names the bad field, before anything is read. */
export function checkBulkRequest(
  action: BulkActionName,
  filterInput: unknown,
  optionsInput: unknown,
  now: number,
): CheckedBulkRequest {
  const filter = bulkFilterOptions.read(filterInput, 'filter');
  const warnings: string[] = [];
  // A fork's `from` is its own option; any other action refuses it as an unknown field.
  const { from, ...common } =
    action === 'fork' && isObject(optionsInput) ? optionsInput : { from: undefined };
  const fork = action === 'fork' ? checkForkPoint(from, 'options.from') : null;
  const options = bulkActionOptions.read(fork ? common : (optionsInput ?? {}), 'options', warnings);
  const ids = filter.ids ?? null;
  const status = checkStatus(action, filter.status, ids !== null);
  const queue = filter.queue ?? null;
  const match = jobFilterParams({ ...filterFields(filter), queue, status }, now);
  return {
    queue,
    status,
    match,
    ids,
    dryRun: options.dryRun,
    batchSize: options.batchSize,
    batchWarning: warnings[0],
    throughId: options.throughId ?? null,
    maxMatched: options.maxMatched ?? null,
    fork,
  };
}

/**
 * A checked filter's fields as the job filter reads them: `createdAfter` and `createdBefore`
 * (or their older names `from` and `to`), or `since`, one way each.
 */
export function filterFields(filter: ReturnType<typeof bulkFilterOptions.read>): JobFilterFields {
  const pairs = [
    ['createdAfter', 'from'],
    ['createdBefore', 'to'],
  ] as const;
  for (const [name, alias] of pairs) {
    if (filter[name] !== undefined && filter[alias] !== undefined) {
      throw new InvalidOptionError(`filter.${alias}`, `either ${name} or ${alias}, not both`, filter[alias]);
    }
  }
  const from = filter.createdAfter ?? filter.from ?? null;
  const to = filter.createdBefore ?? filter.to ?? null;
  if (filter.since !== undefined && (from !== null || to !== null)) {
    throw new InvalidOptionError(
      'filter.since',
      'either since or createdAfter/createdBefore, not both',
      filter.since,
    );
  }
  return {
    queue: filter.queue ?? null,
    status: filter.status ?? null,
    since: filter.since ?? null,
    from,
    to,
    q: filter.q ?? null,
    tags: filter.tags ?? null,
    key: filter.key ?? null,
    version: filter.version ?? null,
  };
}

function checkStatus(
  action: BulkActionName,
  value: JobStatus | undefined,
  hasIds: boolean,
): JobStatus | null {
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
  if (!allowed.includes(value)) {
    throw new InvalidOptionError(
      'filter.status',
      `a status ${action} can act on (${allowed.join(', ')})`,
      value,
    );
  }
  return value;
}
