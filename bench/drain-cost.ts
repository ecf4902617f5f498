/**
 * Where a drain's CPU goes: drain N no-op jobs (default 20,000) with one worker at
 * concurrency 10 on PostgreSQL and print the rate, the worker's CPU, the PostgreSQL server
 * processes' CPU (read from /proc, so Linux only, same machine) and the bytes the worker
 * allocated per job (V8's sampling heap profiler, counting collected objects too).
 * `--no-heap` leaves the profiler off, which otherwise slows the worker it measures.
 *   npx tsx bench/drain-cost.ts [jobs] [--no-heap]
 */
import { Session } from 'node:inspector/promises';
import { startPostgresCpu } from './support/server-cpu.js';
import { formatNumber } from './support/stats.js';
import { openTidemark, tidemarkBulkAdd, tidemarkDrain } from './support/tidemark-subject.js';

const args = process.argv.slice(2);
const heap = !args.includes('--no-heap');
const jobs = Number(args.find((arg) => arg !== '--no-heap') ?? 20_000);

interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
}
const totalSize = (node: SamplingNode): number =>
  node.children.reduce((sum, child) => sum + totalSize(child), node.selfSize);

const { tm, dispose } = await openTidemark('pg');
try {
  tm.createQueue({ name: 'noop' });
  await tm.listQueues();
  await tidemarkBulkAdd(tm, 'noop', jobs);
  const session = new Session();
  session.connect();
  if (heap)
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMinorGC: true,
      includeObjectsCollectedByMajorGC: true,
    } as never);
  const postgresCpu = startPostgresCpu();
  const workerBefore = process.cpuUsage();
  const rate = await tidemarkDrain(tm, 'noop', jobs, 10);
  const worker = process.cpuUsage(workerBefore);
  const postgres = postgresCpu.stop();
  const profile = heap
    ? ((await session.post('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } }).profile
    : null;
  session.disconnect();
  const workerMs = (worker.user + worker.system) / 1000;
  console.log(`drain ${formatNumber(jobs)} no-op jobs: ${formatNumber(rate)} jobs/s`);
  console.log(`worker CPU ${formatNumber(workerMs)} ms (${((workerMs * 1000) / jobs).toFixed(1)} us a job)`);
  console.log(
    `postgres CPU ${formatNumber(postgres)} ms (${((postgres * 1000) / jobs).toFixed(1)} us a job)`,
  );
  if (profile) console.log(`worker allocations ${formatNumber(totalSize(profile.head) / jobs)} bytes a job`);
} finally {
  await dispose();
}
