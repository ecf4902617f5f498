import { createHash } from 'node:crypto';
import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { ALL_STATUSES } from '../job-status.js';
import type { Job } from '../model/job.js';
import { either, integer, literal, text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import {
  type JobFilterParams,
  jobFilterParams,
  type QueryPath,
  type QueryWindow,
} from '../storage/storage.js';
import { bulkFilterOptions, filterFields } from './bulk-filter.js';
import { idRangeOf } from './id-range.js';

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;
export const DEFAULT_COUNT_BOUND = 10_000;
export const MAX_COUNT_BOUND = 1_000_000;

/** The filter of `tm.listJobs` and `tm.countJobs`: the bulk actions' own, field for field. */
const FILTER = bulkFilterOptions.properties;

/** `tm.listJobs`'s filter and paging, declared once. */
export const listJobsOptions = new OptionSet('filter', {
  ...FILTER,
  limit: integer(1, MAX_LIST_LIMIT, { default: DEFAULT_LIST_LIMIT, description: 'jobs per page' }),
  order: either([literal('desc'), literal('asc')], {
    expected: "'desc' or 'asc'",
    docType: "`'desc' \\| 'asc'`",
    default: 'desc' as const,
    description: "newest first (`'desc'`) or oldest first (`'asc'`), by id",
  }),
  after: text(200, {
    description: 'the page after this one: the `cursor` a page returned, with the same filter',
  }),
});

/** `tm.countJobs`'s filter and bound, declared once. */
export const countJobsOptions = new OptionSet('filter', {
  ...FILTER,
  max: integer(1, MAX_COUNT_BOUND, {
    default: DEFAULT_COUNT_BOUND,
    description: 'count up to this many; past it the count is this bound, with `exact: false`',
  }),
});

/** The filter and paging of `tm.listJobs`. */
export type ListJobsFilter = OptionsOf<typeof listJobsOptions.properties>;
/** The filter and bound of `tm.countJobs`. */
export type CountJobsFilter = OptionsOf<typeof countJobsOptions.properties>;

/** A page of `tm.listJobs`. */
export interface JobPage {
  jobs: Job[];
  /** Pass as `after` (with the same filter) for the next page; null on the last one. */
  cursor: string | null;
}

/** What `tm.countJobs` counted. */
export interface JobCount {
  count: number;
  /** False when more jobs match than `max`: `count` is then `max`. */
  exact: boolean;
}

/**
 * One page of jobs matching the filter, by keyset on the id: newest first unless `order` is
 * `'asc'`. Each page is one index walk that stops after the page (see sql/job-query.ts).
 */
export async function listJobs(core: EngineCore, input: ListJobsFilter | undefined): Promise<JobPage> {
  const options = listJobsOptions.read(input ?? {}, '');
  const match = jobFilterParams(filterFields(options), core.clock.now());
  const key = filterKey(match, options.order);
  const cursor = options.after === undefined ? null : readCursor(options.after, key);
  const window = await windowOf(core, match, options.limit + 1);
  if (window === null) return { jobs: [], cursor: null };
  if (cursor !== null) {
    if (options.order === 'desc') window.ceiling = minId(window.ceiling, cursor);
    else window.floor = maxId(window.floor, String(BigInt(cursor) + 1n));
  }
  if (BigInt(window.floor) >= BigInt(window.ceiling)) return { jobs: [], cursor: null };
  const rows = await core.storage.reads.queryJobs(pathOf(match), options.order, window);
  const jobs = rows.slice(0, options.limit);
  const last = jobs[jobs.length - 1];
  return { jobs, cursor: rows.length > options.limit ? cursorOf(last.id, key) : null };
}

/** How many jobs match the filter, counted exactly up to `max`. */
export async function countJobs(core: EngineCore, input: CountJobsFilter | undefined): Promise<JobCount> {
  const options = countJobsOptions.read(input ?? {}, '');
  const match = jobFilterParams(filterFields(options), core.clock.now());
  const window = await windowOf(core, match, options.max + 1);
  if (window === null) return { count: 0, exact: true };
  const n = await core.storage.reads.countJobsUpTo(pathOf(match), window);
  return n > options.max ? { count: options.max, exact: false } : { count: n, exact: true };
}

/** The walk for a filter: the most selective field that has an index of its own. */
function pathOf(match: JobFilterParams): QueryPath {
  if (match.key !== null) return 'key';
  if (match.tags !== null) return 'tags';
  if (match.queue !== null || match.status !== null) return 'pairs';
  return 'all';
}

/** The filter, its id range (from its creation times) and, for a pairs walk, its pairs. */
async function windowOf(
  core: EngineCore,
  match: JobFilterParams,
  limit: number,
): Promise<QueryWindow | null> {
  const ids = await idRangeOf(core, match.from, match.to);
  if (ids === null) return null;
  const pairs = pathOf(match) === 'pairs';
  const queues =
    match.queue !== null
      ? [match.queue]
      : pairs
        ? (await core.storage.queues.listQueues()).map((queue) => queue.name)
        : [];
  return {
    ...match,
    floor: String(ids.lowest),
    ceiling: String(ids.ceiling),
    limit,
    queues: pairs ? queues : [],
    statuses: pairs ? (match.status !== null ? [match.status] : [...ALL_STATUSES]) : [],
  };
}

/*
 * A cursor is the last id of a page, bound to the filter and order it was made for by a
 * checksum: a cursor edited by hand, or passed with another filter, is refused rather than
 * read as some other place in some other list. It guards against mistakes, not attackers:
 * the caller can read every job anyway.
 */

function filterKey(match: JobFilterParams, order: string): string {
  const tags = match.tags === null ? null : [...match.tags].sort();
  return JSON.stringify([order, match.queue, match.status, match.key, tags, match.pattern, match.version]);
}

function checksum(id: string, key: string): string {
  return createHash('sha256').update(`tidemark-cursor\n${key}\n${id}`).digest('base64url').slice(0, 16);
}

function cursorOf(id: string, key: string): string {
  return Buffer.from(`${id}.${checksum(id, key)}`).toString('base64url');
}

function readCursor(cursor: string, key: string): string {
  const [id, sum, extra] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  if (extra !== undefined || !/^[1-9][0-9]{0,18}$/.test(id ?? '') || sum !== checksum(id, key)) {
    throw new InvalidOptionError(
      'after',
      'a cursor returned by listJobs with this same filter and order',
      cursor,
    );
  }
  return id;
}

const minId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? a : b);
const maxId = (a: string, b: string) => (BigInt(a) > BigInt(b) ? a : b);
