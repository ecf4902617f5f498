/**
 * Retention sweep throughput on PostgreSQL, beside a raw batched DELETE of the same rows
 * as the physical reference.
 *
 *   npx tsx bench/retention.ts [rows=100000] [runs=3]
 *
 * For each batch size (1000, 10000) and each method, a fresh table gets `rows` finished,
 * due, single-job trees (the common case), is vacuumed and analysed, and is then emptied:
 * - sweep: `tm.sweep({ batchSize })`, the full retention pass (due-tree selection, member
 *   and pin checks, row locks, keyset cursor, history record);
 * - raw: `DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE purge_after <= now()
 *   LIMIT n)` until a short batch, the least work PostgreSQL can do to delete those rows
 *   (same foreign-key cascades, same indexes).
 * Reports rows deleted per second, the median of `runs`, and sweep / raw.
 * Set TIDEMARK_BENCH_DATABASE_URL to use another server.
 */

import { engineOf } from '../dist/engine-handle.js';
import { Tidemark } from '../dist/index.js';
import { runnerOf } from '../src/storage/storage-internals.js';

const url =
  process.env.TIDEMARK_BENCH_DATABASE_URL ??
  process.env.TIDEMARK_TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 3);
const schema = `bench_retention_${process.pid}`;

const tm = await Tidemark.open({ database: url, schema, logger: undefined });
const driver = runnerOf(engineOf(tm).storage).driver;
const s = `"${schema}"`;

async function fill(): Promise<void> {
  await driver.query(`truncate ${s}.jobs cascade`);
  await driver.query(
    `insert into ${s}.jobs (queue, status, data, output, finished_at, purge_after, retention)
     select 'bench', 'completed', jsonb_build_object('n', g, 'to', 'someone@example.com'), '{"ok": true}',
            now() - interval '40 days', now() - interval '10 days' + g * interval '1 millisecond',
            '{"completed": 2592000}'
       from generate_series(1, $1::int) g`,
    [rows],
  );
  await driver.exec(`vacuum (analyze) ${s}.jobs`);
}

async function timeIt(work: () => Promise<number>): Promise<number> {
  await fill();
  const t0 = performance.now();
  const deleted = await work();
  const seconds = (performance.now() - t0) / 1000;
  if (deleted !== rows) throw new Error(`deleted ${deleted} of ${rows} rows`);
  return deleted / seconds;
}

async function rawDelete(batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await driver.query(
      `delete from ${s}.jobs where id in (select id from ${s}.jobs where purge_after <= now() limit $1)`,
      [batchSize],
    );
    total += result.rowCount;
    if (result.rowCount < batchSize) return total;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  console.log(`retention sweep vs raw batched DELETE, PostgreSQL, ${rows} due rows, median of ${runs}`);
  console.log('batch   sweep rows/s   raw rows/s   sweep/raw   (all runs: sweep | raw)');
  for (const batchSize of [1_000, 10_000]) {
    const sweep: number[] = [];
    const raw: number[] = [];
    // Alternate the two so drift on a shared machine hits both alike.
    for (let run = 0; run < runs; run++) {
      sweep.push(await timeIt(async () => (await tm.sweep({ batchSize })).jobs));
      raw.push(await timeIt(() => rawDelete(batchSize)));
    }
    const [ms, mr] = [median(sweep), median(raw)];
    console.log(
      `${String(batchSize).padEnd(7)} ${Math.round(ms).toString().padStart(12)} ${Math.round(mr)
        .toString()
        .padStart(12)} ${(ms / mr).toFixed(2).padStart(11)}   (${sweep.map(Math.round).join(', ')} | ${raw
        .map(Math.round)
        .join(', ')})`,
    );
  }
} finally {
  await driver.query(`drop schema ${s} cascade`);
  await tm.close();
}
