import { engineOf } from '../../src/engine-handle.js';
import type { Tidemark } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';

/** Jobs in the two queues `seedCountCells` fills: one cell below the exact bound, one far above it. */
export const SMALL_CELL = 2_400;
export const BIG_CELL = 25_000;

const sql = (tm: Tidemark, text: string) =>
  runnerOf(engineOf(tm).storage).driver.query(text.replaceAll('$schema', `"${tm.schema}"`));

/**
 * Queues 'small' (2,400 completed jobs) and 'big' (25,000 completed jobs), all finished now,
 * written by one INSERT … SELECT. On PostgreSQL autovacuum is switched off for the jobs
 * table, so the table stays unanalyzed until `analyzeJobs`, as a busy table does for a while.
 */
export async function seedCountCells(tm: Tidemark): Promise<void> {
  tm.createQueue({ name: 'small' });
  tm.createQueue({ name: 'big' });
  await tm.listQueues();
  if (tm.driverKind === 'node-postgres')
    await sql(tm, 'alter table $schema.jobs set (autovacuum_enabled = off)');
  await sql(
    tm,
    `insert into $schema.jobs (queue, status, data, attempts, started_at, finished_at)
     select case when g <= ${SMALL_CELL} then 'small' else 'big' end, 'completed',
            jsonb_build_object('n', g), 1, now(), now()
       from generate_series(1, ${SMALL_CELL + BIG_CELL}) g`,
  );
}

export async function analyzeJobs(tm: Tidemark): Promise<void> {
  await sql(tm, 'analyze $schema.jobs');
}
