import PgBoss from 'pg-boss';
import type { Figures } from './figures.js';
import { BENCH_URL, dropSchema, freshName, withClient } from './postgres.js';
import { rate } from './stats.js';
import { openTidemark } from './tidemark-subject.js';

export const SWEEP_ROWS = 200_000;
export const HISTORY_ROWS = 1_000_000;
const RAW_BATCH = 1_000;

/**
 * Finished jobs written straight into Tidemark's table, as a long-running system would hold
 * them: due for deletion (finished 31 days ago under a 30-day window) or still kept.
 */
async function insertFinished(schema: string, count: number, due: boolean): Promise<void> {
  const table = `"${schema}".jobs`;
  await withClient(async (client) => {
    await client.query(
      `insert into ${table} (queue, status, data, output, retention, attempts, created_at, started_at,
                             finished_at, purge_after)
       select 'bench', 'completed', jsonb_build_object('n', g), 'null'::jsonb,
              '{"completed": 2592000, "failed": 7776000, "cancelled": 7776000, "expired": 7776000}'::jsonb,
              1, f.at - interval '1 second', f.at - interval '1 second', f.at, f.at + interval '30 days'
         from generate_series(1, $1::int) g,
              lateral (select now() - case when $2::boolean then interval '31 days' else interval '1 day' end
                              + g * interval '1 ms' as at) f`,
      [count, due],
    );
    // A table that grew over weeks has been vacuumed and analysed by autovacuum, and its
    // pages written out by checkpoints: none of that is left to run during the measurement.
    await client.query(`vacuum (analyze) ${table}`);
    await client.query('checkpoint');
  });
}

/** Tidemark's retention pass over 200,000 due jobs (tm.sweep(), default batch 1000). */
export async function tidemarkSweep(): Promise<Figures> {
  const { tm, dispose } = await openTidemark('pg');
  try {
    tm.createQueue({ name: 'bench' });
    await tm.listQueues();
    await insertFinished(tm.schema, SWEEP_ROWS, true);
    const started = performance.now();
    const result = await tm.sweep();
    const elapsed = performance.now() - started;
    if (result.jobs !== SWEEP_ROWS) throw new Error(`sweep deleted ${result.jobs} of ${SWEEP_ROWS} jobs`);
    return { rowsPerSecond: rate(SWEEP_ROWS, elapsed) };
  } finally {
    await dispose();
  }
}

/** The same rows removed by a bare loop of 1000-row DELETE statements on the same table. */
export async function rawBatchedDelete(): Promise<Figures> {
  const { tm, dispose } = await openTidemark('pg');
  try {
    tm.createQueue({ name: 'bench' });
    await tm.listQueues();
    await insertFinished(tm.schema, SWEEP_ROWS, true);
    const table = `"${tm.schema}".jobs`;
    const deleted = await withClient(async (client) => {
      const started = performance.now();
      let total = 0;
      for (;;) {
        const result = await client.query(
          `with due as (select id from ${table} where purge_after <= now() order by purge_after limit $1)
           delete from ${table} j using due where j.id = due.id`,
          [RAW_BATCH],
        );
        total += result.rowCount ?? 0;
        if ((result.rowCount ?? 0) < RAW_BATCH) break;
      }
      return { total, elapsed: performance.now() - started };
    });
    if (deleted.total !== SWEEP_ROWS) throw new Error(`raw delete removed ${deleted.total} rows`);
    return { rowsPerSecond: rate(SWEEP_ROWS, deleted.elapsed) };
  } finally {
    await dispose();
  }
}

/** A pg-boss schema whose job table holds SWEEP_ROWS completed jobs, past its archive interval. */
async function pgBossWithCompleted(schema: string): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: BENCH_URL, schema, schedule: false, supervise: false });
  boss.on('error', () => {});
  await boss.start();
  await boss.createQueue('bench');
  await withClient(async (client) => {
    await client.query(
      `insert into "${schema}".job (name, data, state, created_on, started_on, completed_on)
       select 'bench', jsonb_build_object('n', g), 'completed', now() - interval '3 days',
              now() - interval '3 days', now() - interval '2 days'
         from generate_series(1, $1::int) g`,
      [SWEEP_ROWS],
    );
    await client.query(`vacuum (analyze) "${schema}".job`);
    await client.query('checkpoint');
  });
  return boss;
}

async function countOf(schema: string, table: string, where = 'true'): Promise<number> {
  return withClient(
    async (client) =>
      (await client.query(`select count(*)::int as n from "${schema}".${table} where ${where}`)).rows[0].n,
  );
}

/**
 * pg-boss's own cleanup: maintain() moves completed jobs past archiveCompletedAfterSeconds
 * out of its job table (into its archive) in one statement.
 */
export function pgBossMaintain(): Promise<Figures> {
  return pgBossCleanup(false);
}

/**
 * The same rows removed from the database by pg-boss: maintain() archives them, and a later
 * maintain() deletes archived rows older than deleteAfterSeconds (7 days by default). The two
 * passes are timed; the archive is aged past its window between them, untimed, and vacuumed
 * and checkpointed as those days would have.
 */
export function pgBossRemoval(): Promise<Figures> {
  return pgBossCleanup(true);
}

async function pgBossCleanup(removeArchive: boolean): Promise<Figures> {
  const schema = freshName('bench_pb');
  const boss = await pgBossWithCompleted(schema);
  const timedMaintain = async () => {
    const started = performance.now();
    await boss.maintain();
    return performance.now() - started;
  };
  try {
    let elapsed = await timedMaintain();
    if (removeArchive) {
      await withClient(async (client) => {
        await client.query(`update "${schema}".archive set archived_on = now() - interval '8 days'`);
        await client.query(`vacuum (analyze) "${schema}".archive`);
        await client.query('checkpoint');
      });
      elapsed += await timedMaintain();
    }
    let left = await countOf(schema, 'job', `state = 'completed'`);
    if (removeArchive) left += await countOf(schema, 'archive');
    if (left !== 0) throw new Error(`pg-boss left ${left} rows`);
    return { rowsPerSecond: rate(SWEEP_ROWS, elapsed) };
  } finally {
    await boss.stop({ graceful: false, wait: true });
    await dropSchema(schema);
  }
}

/** Prepare a Tidemark schema holding a million finished (kept) jobs before a drain. */
export function withHistory(schema: string): Promise<void> {
  return insertFinished(schema, HISTORY_ROWS, false);
}
