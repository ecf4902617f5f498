import { AssertionError } from 'node:assert';
import { isDeepStrictEqual } from 'node:util';
import type { JobStatus } from '../job-status.js';
import type { Job } from '../model/job.js';

/** What `expectJob` looks for. */
export interface ExpectedJob<Data = unknown> {
  queue: string;
  /** The status it must have now. */
  status?: JobStatus;
  /** Fields its data must hold (compared deeply; other fields may be there too), or a test of the job. */
  where?: Partial<Data> | Record<string, unknown> | ((job: Job<Data>) => boolean);
}

/** What `expectJob` reads of the engine. */
export interface JobLister {
  jobs(queue: string): Promise<Job[]>;
}

/**
 * The oldest job of `expected.queue` that has its status and matches `where`; an
 * AssertionError naming what was looked for and listing the queue's jobs when there is none.
 */
export async function expectJob<Data = unknown>(
  tm: JobLister,
  expected: ExpectedJob<Data>,
): Promise<Job<Data>> {
  const jobs = (await tm.jobs(expected.queue)) as Job<Data>[];
  const found = jobs.find((job) => matches(job, expected));
  if (found) return found;
  const seen = jobs.slice(0, 20).map((job) => `  ${job.id} ${job.status} ${preview(job.data)}`);
  if (jobs.length > seen.length) seen.push(`  ... and ${jobs.length - seen.length} more`);
  throw new AssertionError({
    message: `no job in queue '${expected.queue}'${expected.status ? ` with status '${expected.status}'` : ''}${
      expected.where === undefined ? '' : ' matching where'
    }; the queue holds ${jobs.length === 0 ? 'no jobs' : `:\n${seen.join('\n')}`}`,
    actual: jobs.map((job) => ({ id: job.id, status: job.status, data: job.data })),
    expected: { queue: expected.queue, status: expected.status, where: expected.where },
    operator: 'expectJob',
  });
}

function matches<Data>(job: Job<Data>, expected: ExpectedJob<Data>): boolean {
  if (expected.status !== undefined && job.status !== expected.status) return false;
  const { where } = expected;
  if (where === undefined) return true;
  if (typeof where === 'function') return where(job);
  return holds(job.data, where);
}

/** Whether `value` holds every field of `part`, recursively for plain objects. */
function holds(value: unknown, part: unknown): boolean {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return isDeepStrictEqual(value, part);
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return Object.entries(part).every(([key, field]) => key in record && holds(record[key], field));
}

function preview(data: unknown): string {
  const text = JSON.stringify(data) ?? String(data);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
