/**
 * How the dashboard's statements behave on a big jobs table: fills a fresh schema with N jobs
 * (default 1,000,000) by one INSERT … SELECT, analyzes it, then times each page's data load.
 * Usage: tsx bench/dashboard-scale.ts [pg|pglite] [jobs]
 */

import { randomBytes } from 'node:crypto';
import { loadTree } from '../src/admin/job-extras.js';
import { listJobs } from '../src/admin/job-list.js';
import { loadOverview } from '../src/admin/overview.js';
import { loadQueueCharts } from '../src/admin/queue-charts.js';
import { loadStorageStats } from '../src/admin/storage-stats.js';
import { engineOf } from '../src/engine-handle.js';
import { Tidemark } from '../src/index.js';
import { runnerOf } from '../src/storage/storage-internals.js';

const kind = process.argv[2] ?? 'pg';
const count = Number(process.argv[3] ?? 1_000_000);
const url = process.env.TIDEMARK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_${randomBytes(4).toString('hex')}`;
const tm = await Tidemark.open({ database: kind === 'pg' ? url : 'memory://', schema });
const sql = (text: string) =>
  runnerOf(engineOf(tm).storage).driver.query(text.replaceAll('$s', `"${schema}"`));

try {
  for (const name of ['emails', 'billing', 'reports', 'orders', 'alerts']) tm.createQueue({ name });
  await tm.listQueues();
  // Statistics come only from the ANALYZE below, as on a table autovacuum has not reached yet.
  if (kind === 'pg') await sql('alter table $s.jobs set (autovacuum_enabled = off)');
  let t = performance.now();
  // One hour of recent history at the top of the id range, the rest spread over 30 days.
  await sql(`insert into $s.jobs (queue, status, data, attempts, created_at, run_at, started_at, finished_at, error)
    select (array['emails','billing','reports','orders','alerts'])[1 + g % 5],
           case when g % 997 = 0 then 'failed' when g % 101 = 0 then 'pending' when g % 503 = 0 then 'retry' else 'completed' end,
           jsonb_build_object('n', g, 'to', 'user' || g || '@example.com', 'note', case when g % 100003 = 0 then 'rare-needle' end),
           1, ts, ts - (g % 50) * interval '10 ms', ts, case when g % 101 = 0 or g % 503 = 0 then null else ts + interval '20 ms' end,
           case when g % 997 = 0 then '{"name":"Error","message":"card declined"}'::jsonb end
      from generate_series(1, ${count}) g,
           lateral (select now() - ((${count} - g)::float8 / ${count}) * interval '30 days' as ts) t`);
  // A queue busy enough that its 24 h and 7 d charts reach the row cap: 250,000 finished today.
  tm.createQueue({ name: 'firehose' });
  await tm.listQueues();
  await sql(`insert into $s.jobs (queue, status, data, attempts, created_at, run_at, started_at, finished_at)
    select 'firehose', case when g % 50 = 0 then 'failed' else 'completed' end, '{}'::jsonb, 1, ts, ts,
           ts + (g % 400) * interval '1 ms', ts + interval '20 ms'
      from generate_series(1, 250000) g,
           lateral (select now() - (g::float8 / 250000) * interval '23 hours' as ts) t`);
  console.log(`${kind}: filled ${count} jobs in ${((performance.now() - t) / 1000).toFixed(1)} s`);

  const time = async (label: string, fn: () => Promise<unknown>) => {
    await fn();
    const runs: number[] = [];
    for (let i = 0; i < 3; i++) {
      t = performance.now();
      await fn();
      runs.push(performance.now() - t);
    }
    runs.sort((a, b) => a - b);
    console.log(`${label.padEnd(44)} ${runs[1].toFixed(1).padStart(8)} ms (median of 3)`);
  };
  const mid = BigInt(Math.floor(count / 2));
  const day = 86_400_000;
  const suite = async () => {
    await time('queues overview (counts, chart)', () => loadOverview(engineOf(tm)));
    await time('jobs: newest page', () => listJobs(engineOf(tm), {}));
    await time('jobs: page deep in the table', () => listJobs(engineOf(tm), { before: mid }));
    await time('jobs: newer page deep in the table', () => listJobs(engineOf(tm), { after: mid }));
    await time('jobs: status=failed', () => listJobs(engineOf(tm), { status: 'failed' }));
    await time('jobs: queue=billing status=failed, deep', () =>
      listJobs(engineOf(tm), { queue: 'billing', status: 'failed', before: mid }),
    );
    await time('jobs: queue=orders', () => listJobs(engineOf(tm), { queue: 'orders' }));
    await time('jobs: created in the last hour', () => listJobs(engineOf(tm), { since: 3600 }));
    await time('jobs: created 10-11 days ago', () =>
      listJobs(engineOf(tm), { from: new Date(Date.now() - 11 * day), to: new Date(Date.now() - 10 * day) }),
    );
    await time('jobs: text search, one window', () => listJobs(engineOf(tm), { q: 'rare-needle' }));
    await time('jobs: text search in error text', () => listJobs(engineOf(tm), { q: 'card declined' }));
    await time('jobs: text search + status=failed', () =>
      listJobs(engineOf(tm), { q: 'user1', status: 'failed' }),
    );
    await time('job detail (run history, tree)', () =>
      Promise.all([tm.getJobDetail(String(mid)), loadTree(engineOf(tm), String(mid))]),
    );
    await time('storage page', () => loadStorageStats(engineOf(tm)));
    for (const window of ['1h', '24h', '7d'] as const) {
      await time(`queue page charts, emails, ${window}`, () =>
        loadQueueCharts(engineOf(tm), 'emails', window),
      );
      await time(`queue page charts, firehose (capped), ${window}`, () =>
        loadQueueCharts(engineOf(tm), 'firehose', window),
      );
    }
  };
  console.log('-- before any ANALYZE (no statistics yet)');
  await time('queues overview (counts, chart)', () => loadOverview(engineOf(tm)));
  await sql('analyze $s.jobs');
  console.log('-- after ANALYZE, before any VACUUM (as on PGlite, which runs no autovacuum)');
  await suite();
  await sql('vacuum analyze $s.jobs');
  console.log('-- after VACUUM (as autovacuum leaves a PostgreSQL table)');
  await suite();
} finally {
  if (kind === 'pg') await sql('drop schema $s cascade');
  await tm.close();
}
