/**
 * A sweep of a backlog that landed at once, on tables the planner has no statistics for
 * (never analysed, autovacuum off for the run), as after a bulk import or a policy change
 * that makes months of history due together.
 *
 *   npm run build && npx tsx bench/sweep-backlog.ts [pg=120000] [pglite=30000] [--analyze]
 *
 * For each driver (a row count of 0 skips it): a fresh schema (PostgreSQL) or a fresh
 * `memory://` PGlite gets that many finished single-job trees, all due, in one INSERT; then
 * `tm.sweep()` (default batch size) deletes them. Prints rows deleted per second, the
 * batches run, and the longest the event loop went without a turn during the sweep (a
 * 10 ms interval timer's worst lateness; on PGlite every statement runs on this thread).
 * `--analyze` runs ANALYZE after the insert, for the comparison. Set
 * TIDEMARK_BENCH_DATABASE_URL to use another server.
 */

import { engineOf } from '../dist/engine-handle.js';
import { silentLogger, Tidemark } from '../dist/index.js';
import { runnerOf } from '../src/storage/storage-internals.js';

const url =
  process.env.TIDEMARK_BENCH_DATABASE_URL ??
  process.env.TIDEMARK_TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const analyze = process.argv.includes('--analyze');
const counts = { pg: Number(args[0] ?? 120_000), pglite: Number(args[1] ?? 30_000) };

/** The worst lateness of a 10 ms timer while `work` runs: how long the event loop stood still. */
async function withLoopWatch<T>(work: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last - 10);
    last = now;
  }, 10);
  try {
    const value = await work();
    stallMs = Math.max(stallMs, performance.now() - last - 10);
    return { value, stallMs };
  } finally {
    clearInterval(timer);
  }
}

async function run(kind: 'pg' | 'pglite', rows: number): Promise<void> {
  const schema = `bench_backlog_${process.pid}`;
  const tm = await Tidemark.open({
    database: kind === 'pg' ? url : 'memory://',
    schema,
    logger: silentLogger,
  });
  const driver = runnerOf(engineOf(tm).storage).driver;
  const s = `"${schema}"`;
  try {
    if (kind === 'pg') await driver.query(`alter table ${s}.jobs set (autovacuum_enabled = false)`);
    await driver.query(
      `insert into ${s}.jobs (queue, status, data, finished_at, purge_after, retention)
       select 'bench', 'completed', jsonb_build_object('n', g), now() - interval '40 days',
              now() - interval '10 days' + g * interval '1 millisecond', '{"completed": 2592000}'
         from generate_series(1, $1::int) g`,
      [rows],
    );
    if (analyze) await driver.query(`analyze ${s}.jobs`);
    let batches = 0;
    engineOf(tm).events.once('sweep:finished', (e) => {
      batches = e.batches;
    });
    const t0 = performance.now();
    const { value: result, stallMs } = await withLoopWatch(() => tm.sweep());
    const seconds = (performance.now() - t0) / 1000;
    if (result.jobs !== rows)
      throw new Error(`deleted ${result.jobs} of ${rows} rows: ${result.error ?? ''}`);
    console.log(
      `${kind.padEnd(7)} ${String(rows).padStart(8)} ${seconds.toFixed(2).padStart(9)} ${Math.round(
        rows / seconds,
      )
        .toString()
        .padStart(10)} ${String(batches).padStart(8)} ${Math.round(stallMs).toString().padStart(14)}`,
    );
  } finally {
    if (kind === 'pg') await driver.query(`drop schema ${s} cascade`);
    await tm.close();
  }
}

console.log(`sweep of a backlog inserted at once, ${analyze ? 'after ANALYZE' : 'no statistics'}`);
console.log('driver      rows   seconds     rows/s  batches  max stall ms');
if (counts.pg > 0) await run('pg', counts.pg);
if (counts.pglite > 0) await run('pglite', counts.pglite);
