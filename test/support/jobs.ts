import type { Job, Tidemark, Worker, WorkerOptions } from '../../src/index.js';
import { rawQuery } from './databases.js';
import { waitFor } from './wait-for.js';

/**
 * A worker tuned for tests: a fast tick and poll, no sweeps (they have their own tests).
 * Any option can be overridden.
 */
export function fastWorker(tm: Tidemark, options: WorkerOptions = {}): Worker {
  return tm.worker({
    tickIntervalSeconds: 0.1,
    pollIntervalSeconds: 0.05,
    shutdownTimeoutSeconds: 2,
    sweep: false,
    uniqueLockSweep: false,
    ...options,
  });
}

/** A promise with its resolve and reject exposed, to hold a handler until the test lets it go. */
export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Resolves when `signal` aborts (with its reason). */
export function aborted(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
  );
}

/** Rows in one of the engine's tables. */
export async function countRows(tm: Tidemark, table: string, where = 'true'): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(
    tm,
    `select count(*)::int as n from "${tm.schema}".${table} where ${where}`,
  );
  return row.n;
}

/** Wait until the job reaches `status` (any of them, when several are given) and return it. */
export async function waitForStatus(
  tm: Tidemark,
  id: string,
  status: string | string[],
  timeoutMs?: number,
): Promise<Job> {
  const wanted = Array.isArray(status) ? status : [status];
  return waitFor(
    `job ${id} to be ${wanted.join(' or ')}`,
    async () => {
      const job = await tm.getJob(id);
      return job && wanted.includes(job.status) ? job : null;
    },
    timeoutMs === undefined ? {} : { timeoutMs },
  );
}

/** Run a statement on one job row of the engine's schema: `set` is the SQL after SET. */
export async function updateJob(tm: Tidemark, id: string, set: string): Promise<void> {
  await rawQuery(tm, `update "${tm.schema}".jobs set ${set} where id = $1::bigint`, [id]);
}

/** Jobs of `queue` put straight into a finished status (one attempt spent), as a worker would leave them. */
export async function finishedJobs(
  tm: Tidemark,
  queue: string,
  n: number,
  status = 'failed',
): Promise<string[]> {
  const added = await tm.addJobs(Array.from({ length: n }, (_, i) => ({ queue, data: { i } })));
  for (const { id } of added) {
    await updateJob(tm, id, `status = '${status}', attempts = 1, finished_at = now()`);
  }
  return added.map((r) => r.id);
}

/** The status of each job, 'gone' for one that no longer exists. */
export async function statusesOf(tm: Tidemark, ids: string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await tm.getJob(id))?.status ?? 'gone'));
}
