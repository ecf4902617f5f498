/**
 * Bulk-add 20,000 no-op jobs and drain them with one worker at concurrency 10, on
 * PostgreSQL (a fresh schema each run) and on PGlite (memory://). Prints the median of 3.
 *   npx tsx bench/throughput.ts [--jobs 20000] [--reps 3] [--only pg,pglite]
 */
import { parseArgs } from 'node:util';
import { formatNumber, median } from './support/stats.js';
import {
  openTidemark,
  type TidemarkTarget,
  tidemarkBulkAdd,
  tidemarkDrain,
} from './support/tidemark-subject.js';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20000' },
    reps: { type: 'string', default: '3' },
    only: { type: 'string', default: 'pg,pglite' },
    concurrency: { type: 'string', default: '10' },
  },
});
const jobs = Number(values.jobs);
const reps = Number(values.reps);
const concurrency = Number(values.concurrency);
const targets = values.only.split(',') as TidemarkTarget[];

const results = new Map<TidemarkTarget, { add: number[]; drain: number[] }>();
for (let rep = 1; rep <= reps; rep++) {
  for (const target of targets) {
    const { tm, dispose } = await openTidemark(target);
    try {
      tm.createQueue({ name: 'noop' });
      await tm.listQueues();
      const add = await tidemarkBulkAdd(tm, 'noop', jobs);
      const drain = await tidemarkDrain(tm, 'noop', jobs, concurrency);
      const entry = results.get(target) ?? { add: [], drain: [] };
      entry.add.push(add);
      entry.drain.push(drain);
      results.set(target, entry);
      console.log(
        `rep ${rep} ${target}: add ${formatNumber(add)} jobs/s, drain ${formatNumber(drain)} jobs/s`,
      );
    } finally {
      await dispose();
    }
  }
}
console.log(
  `\n${formatNumber(jobs)} no-op jobs, one worker at concurrency ${concurrency}, median of ${reps}`,
);
console.log('target   add jobs/s   drain jobs/s');
for (const [target, r] of results) {
  console.log(
    `${target.padEnd(8)} ${formatNumber(median(r.add)).padStart(10)}   ${formatNumber(median(r.drain)).padStart(12)}`,
  );
}
