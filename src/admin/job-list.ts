import type { EngineCore } from '../engine-core.js';
import { ALL_STATUSES, isJobStatus } from '../job-status.js';
import { idRangeOf } from '../jobs/id-range.js';
import { MAX_ID } from '../model/job-rules.js';
import { MAX_TAG_LENGTH } from '../options/shared-fields.js';
import { type JobFilterParams, type JobListRow, jobFilterParams } from '../storage/storage.js';

export type { JobListRow } from '../storage/storage.js';

export const PAGE_SIZE = 50;
/** A text search examines at most this many ids per page, so a rare match never scans the table. */
export const SEARCH_WINDOW = 20_000n;
/** The longest 'created within' window, as for a purge's age: about a century. */
export const MAX_SINCE_SECONDS = 3_200_000_000;
/** Dates a range may name: every job was created in between, and both ends stay valid timestamps. */
const EARLIEST_DATE = Date.UTC(1970, 0, 1);
const LATEST_DATE = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export interface JobFilter {
  queue?: string;
  status?: string;
  /** Created within the last N seconds. */
  since?: number;
  from?: Date;
  to?: Date;
  /** Text searched (case-insensitively) in the job's data as JSON text and its error's message and name. */
  q?: string;
  /** Only jobs carrying this tag (one, from the page's `tag` field). */
  tags?: string[];
  /** Cursor of an older page: only ids below this. */
  before?: bigint;
  /** Cursor of a newer page: only ids above this (the page is still shown newest first). */
  after?: bigint;
}

export interface JobListPage {
  /** Newest first. */
  rows: JobListRow[];
  /** The `before` cursor of the next older page, or null at the end. */
  next: bigint | null;
  /** The `after` cursor of the next newer page, or null when this page is the newest. */
  newer: bigint | null;
  /** When a text search stopped at its window before filling the page: the lowest id it covered. */
  searchedDownTo: bigint | null;
  /** The same, paging newer: the highest id it covered. */
  searchedUpTo: bigint | null;
}

const EMPTY: JobListPage = { rows: [], next: null, newer: null, searchedDownTo: null, searchedUpTo: null };

/**
 * Read filters from the query string. A value that does not parse or lies out of range is
 * reported by its parameter's name and not used; the page then runs no query at all.
 */
export function parseFilter(params: URLSearchParams): { filter: JobFilter; problems: string[] } {
  const filter: JobFilter = {};
  const problems: string[] = [];
  const text = (name: string) => {
    const value = params.get(name)?.trim();
    return value ? value : undefined;
  };
  filter.queue = text('queue');
  const status = text('status');
  if (status !== undefined) {
    if (isJobStatus(status)) filter.status = status;
    else problems.push(`unknown status '${status}'`);
  }
  const since = text('since');
  if (since !== undefined) {
    const seconds = Number(since);
    if (Number.isFinite(seconds) && seconds >= 1 && seconds <= MAX_SINCE_SECONDS) filter.since = seconds;
    else problems.push(`'since' must be a number of seconds from 1 to ${MAX_SINCE_SECONDS}, got '${since}'`);
  }
  for (const name of ['from', 'to'] as const) {
    const value = text(name);
    if (value === undefined) continue;
    // datetime-local inputs carry no zone: the page labels them UTC, so read them as UTC.
    const date = new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
    const time = date.getTime();
    if (Number.isNaN(time)) problems.push(`'${name}' is not a date: '${value}'`);
    else if (time < EARLIEST_DATE || time > LATEST_DATE)
      problems.push(`'${name}' must be a date from 1970-01-01 to 9999-12-31 (UTC), got '${value}'`);
    else filter[name] = date;
  }
  const tag = text('tag');
  if (tag !== undefined) {
    if (tag.length <= MAX_TAG_LENGTH) filter.tags = [tag];
    else problems.push(`'tag' must be at most ${MAX_TAG_LENGTH} characters`);
  }
  const q = params.get('q');
  if (q?.trim()) filter.q = q.trim().slice(0, 200);
  // A page cursor is a job id; 'after=0' (every id) is a cursor too, 'before=0' (none) is not.
  for (const [name, least] of [
    ['before', 1n],
    ['after', 0n],
  ] as const) {
    const value = text(name);
    if (value === undefined) continue;
    if (/^\d{1,19}$/.test(value) && BigInt(value) >= least && BigInt(value) <= MAX_ID)
      filter[name] = BigInt(value);
    else
      problems.push(`'${name}' must be a page cursor (a job id from ${least} to ${MAX_ID}), got '${value}'`);
  }
  if (filter.before !== undefined && filter.after !== undefined) {
    problems.push(`'before' and 'after' page in opposite directions: give one of them`);
  }
  return { filter, problems };
}

/**
 * One page of jobs, newest first, by keyset: ids below `before` (older pages) or above
 * `after` (newer pages). Every statement is an index walk that stops after a page: the time
 * range is turned into an id range by binary search over the primary key, and a text search
 * covers a bounded window of ids per page.
 */
export async function listJobs(
  core: EngineCore,
  filter: JobFilter,
  now = core.clock.now(),
): Promise<JobListPage> {
  // The one filter of the list and the bulk actions; since is fixed against now here.
  const params = jobFilterParams(filter, now);
  const ids = await idRangeOf(core, params.from, params.to);
  if (ids === null) return EMPTY;
  const searching = filter.q !== undefined || filter.tags !== undefined;
  const range = { ...ids, window: searching ? SEARCH_WINDOW : null };
  const read = (walk: Walk, floor: bigint, before: bigint) =>
    readPage(core, filter, params, walk, { floor, before });
  return filter.after !== undefined
    ? newerPage(filter.after, range, read)
    : olderPage(filter.before, range, read);
}

type Walk = 'older' | 'newer';
type Read = (walk: Walk, floor: bigint, before: bigint) => Promise<JobListRow[]>;
/** The ids the filters allow, lowest ≤ id < ceiling, and the search window (null: no search). */
interface IdRange {
  lowest: bigint;
  ceiling: bigint;
  window: bigint | null;
}

/** Ids below the cursor, walking down. */
async function olderPage(cursor: bigint | undefined, range: IdRange, read: Read): Promise<JobListPage> {
  const before = cursor !== undefined && cursor < range.ceiling ? cursor : range.ceiling;
  const floor = max(range.lowest, range.window === null ? range.lowest : before - range.window);
  const rows = await read('older', floor, before);
  const newer = before < range.ceiling ? (rows.length > 0 ? BigInt(rows[0].id) : before - 1n) : null;
  if (rows.length > PAGE_SIZE) {
    const page = rows.slice(0, PAGE_SIZE);
    return { ...EMPTY, rows: page, next: BigInt(page[PAGE_SIZE - 1].id), newer };
  }
  if (floor > range.lowest) return { ...EMPTY, rows, next: floor, newer, searchedDownTo: floor };
  return { ...EMPTY, rows, newer };
}

/** Ids above the cursor, walking up; the page is turned round to show newest first. */
async function newerPage(cursor: bigint, range: IdRange, read: Read): Promise<JobListPage> {
  const floor = max(range.lowest, cursor + 1n);
  if (floor >= range.ceiling) return { ...EMPTY, next: floor > range.lowest ? floor : null };
  const top = range.window === null ? range.ceiling : min(range.ceiling, floor + range.window);
  const rows = await read('newer', floor, top);
  const page = rows.slice(0, PAGE_SIZE).reverse();
  const next = floor > range.lowest ? (page.length > 0 ? BigInt(page[page.length - 1].id) : floor) : null;
  if (rows.length > PAGE_SIZE) return { ...EMPTY, rows: page, next, newer: BigInt(page[0].id) };
  if (top < range.ceiling) return { ...EMPTY, rows: page, next, newer: top - 1n, searchedUpTo: top - 1n };
  return { ...EMPTY, rows: page, next };
}

/** One walk of the list statements: the primary key, or the (queue, status, id) index per pair. */
async function readPage(
  core: EngineCore,
  filter: JobFilter,
  matching: JobFilterParams,
  walk: Walk,
  window: { floor: bigint; before: bigint },
): Promise<JobListRow[]> {
  const storage = core.storage;
  const pairs =
    filter.queue === undefined && filter.status === undefined
      ? null
      : {
          queues:
            filter.queue !== undefined
              ? [filter.queue]
              : (await storage.queues.listQueues()).map((q) => q.name),
          statuses: filter.status !== undefined ? [filter.status] : [...ALL_STATUSES],
        };
  return storage.reads.listJobPage(walk, {
    match: matching,
    before: String(window.before),
    floor: String(window.floor),
    limit: PAGE_SIZE + 1,
    pairs,
  });
}

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
