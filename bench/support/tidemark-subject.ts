import { type DatabaseOption, type OpenOptions, silentLogger, Tidemark } from '../../dist/index.js';
import { BENCH_URL, dropSchema, freshName } from './postgres.js';
import { rate, until } from './stats.js';

export type TidemarkTarget = 'pg' | 'pglite';

/** Tidemark on a fresh schema of PostgreSQL, or on a fresh in-memory PGlite. */
export async function openTidemark(
  target: TidemarkTarget,
  database: DatabaseOption = target === 'pg' ? BENCH_URL : 'memory://',
  options: Omit<OpenOptions, 'database' | 'schema' | 'logger'> = {},
): Promise<{ tm: Tidemark; dispose(): Promise<void> }> {
  const schema = freshName('bench_tm');
  const tm = await Tidemark.open({ ...options, database, schema, logger: silentLogger });
  return {
    tm,
    async dispose() {
      await tm.close();
      if (target === 'pg') await dropSchema(schema);
    },
  };
}

/** Add `count` jobs through addJobs in batches; returns jobs/s. */
export async function tidemarkBulkAdd(tm: Tidemark, queue: string, count: number, batch = 1_000) {
  const started = performance.now();
  for (let i = 0; i < count; i += batch) {
    const size = Math.min(batch, count - i);
    await tm.addJobs(Array.from({ length: size }, (_, k) => ({ queue, data: { n: i + k } })));
  }
  return rate(count, performance.now() - started);
}

/**
 * Drain every job of `queue` (already added) with one worker; returns jobs/s from
 * `start()` to the last completion.
 */
export async function tidemarkDrain(
  tm: Tidemark,
  queue: string,
  count: number,
  concurrency: number,
  handler: () => unknown = () => undefined,
) {
  let done = 0;
  tm.createQueue({
    name: queue,
    retention: false,
    handler: async () => {
      const value = handler();
      done++;
      return value;
    },
  });
  const worker = tm.worker({ queues: [queue], concurrency, sweep: false, uniqueLockSweep: false });
  const started = performance.now();
  await worker.start();
  await until(() => done >= count);
  const elapsed = performance.now() - started;
  await worker.stop();
  return rate(count, elapsed);
}
