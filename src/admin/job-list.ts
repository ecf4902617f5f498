import type { EngineCore } from '../engine-core.js';
import { ALL_STATUSES, isJobStatus } from '../job-status.js';
import {
  type JobListRow,
  jobAtOrAfter,
  jobIdBounds,
  listJobsAll,
  listJobsByQueueStatus,
} from '../storage/sql/admin.js';

export type { JobListRow } from '../storage/sql/admin.js';

export const PAGE_SIZE = 50;
/** A text search examines at most this many ids per page, so a rare match never scans the table. */
export const SEARCH_WINDOW = 20_000n;
/** Rows whose transaction started this long before the range may still carry a later id. */
const CLOCK_SLACK_MS = 60_000;
const MAX_BIGINT = 9_223_372_036_854_775_807n;
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
  /** Text searched (case-insensitively) in the job's data as JSON text. */
  q?: string;
  /** Cursor: only ids below this. */
  before?: bigint;
}

export interface JobListPage {
  rows: JobListRow[];
  /** The cursor of the next (older) page, or null at the end. */
  next: bigint | null;
  /** When a text search stopped at its window before filling the page: the ids it covered. */
  searchedDownTo: bigint | null;
}

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
  const q = params.get('q');
  if (q?.trim()) filter.q = q.trim().slice(0, 200);
  const before = text('before');
  if (before !== undefined) {
    if (/^[1-9]\d{0,18}$/.test(before) && BigInt(before) <= MAX_BIGINT) filter.before = BigInt(before);
    else problems.push(`bad page cursor '${before}'`);
  }
  return { filter, problems };
}

/**
 * One page of jobs, newest first, by keyset (ids below the cursor). Every statement is an
 * index walk that stops after a page: the time range is turned into an id range by binary
 * search over the primary key, and a text search covers a bounded window of ids per page.
 */
export async function listJobs(core: EngineCore, filter: JobFilter, now = Date.now()): Promise<JobListPage> {
  const storage = core.storage;
  const [bounds] = await storage.run(jobIdBounds, {});
  if (!bounds?.lo || !bounds.hi) return { rows: [], next: null, searchedDownTo: null };
  const from = filter.since !== undefined ? new Date(now - filter.since * 1000) : filter.from;
  const to = filter.since !== undefined ? undefined : filter.to;
  let lowest = BigInt(bounds.lo);
  let ceiling = BigInt(bounds.hi) + 1n;
  if (from)
    lowest = await firstIdCreatedAtOrAfter(core, new Date(from.getTime() - CLOCK_SLACK_MS), lowest, ceiling);
  if (to)
    ceiling = await firstIdCreatedAtOrAfter(core, new Date(to.getTime() + CLOCK_SLACK_MS), lowest, ceiling);
  const before = filter.before !== undefined && filter.before < ceiling ? filter.before : ceiling;
  const windowFloor = filter.q !== undefined ? before - SEARCH_WINDOW : lowest;
  const floor = windowFloor > lowest ? windowFloor : lowest;
  const params = {
    before: String(before),
    floor: String(floor),
    from: from ?? null,
    to: to ?? null,
    pattern: filter.q === undefined ? null : `%${escapeLike(filter.q)}%`,
    limit: PAGE_SIZE + 1,
  };
  const rows =
    filter.queue === undefined && filter.status === undefined
      ? await storage.run(listJobsAll, params)
      : await storage.run(listJobsByQueueStatus, {
          ...params,
          queues:
            filter.queue !== undefined ? [filter.queue] : (await storage.listQueues()).map((q) => q.name),
          statuses: filter.status !== undefined ? [filter.status] : [...ALL_STATUSES],
        });
  if (rows.length > PAGE_SIZE) {
    const page = rows.slice(0, PAGE_SIZE);
    return { rows: page, next: BigInt(page[PAGE_SIZE - 1].id), searchedDownTo: null };
  }
  if (floor > lowest) return { rows, next: floor, searchedDownTo: floor };
  return { rows, next: null, searchedDownTo: null };
}

/**
 * The lowest id whose creation time is at or after `at`, assuming ids grow with time
 * (they are drawn from one sequence at insert). About 2·log2(ids) single-row probes.
 */
async function firstIdCreatedAtOrAfter(core: EngineCore, at: Date, lo: bigint, hi: bigint): Promise<bigint> {
  const storage = core.storage;
  let low = lo;
  let high = hi;
  while (low < high) {
    const mid = low + (high - low) / 2n;
    const [row] = await storage.run(jobAtOrAfter, {
      id: String(mid),
    });
    if (!row || BigInt(row.id) >= high) high = mid;
    else if (new Date(row.created_at).getTime() < at.getTime()) low = BigInt(row.id) + 1n;
    else high = mid;
  }
  return low;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
