import type pg from 'pg';
import PgBoss from 'pg-boss';
import { engineOf } from '../../dist/engine-handle.js';
import type { Tidemark } from '../../dist/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import type { Figures } from './figures.js';
import { BENCH_URL, dropSchema, freshName, withClient } from './postgres.js';
import { rate, until } from './stats.js';
import { openTidemark } from './tidemark-subject.js';

export const SWEEP_ROWS = 200_000;
export const HISTORY_ROWS = 1_000_000;
/** Kept (not yet due) finished rows beside the sweep in the scale figure. */
export const KEPT_ROWS = 5_000_000;
/** Due rows swept while a worker drains, in the concurrency figure. */
export const CONCURRENT_SWEEP_ROWS = 1_000_000;
/** No-op jobs drained beside that sweep. */
export const CONCURRENT_DRAIN_JOBS = 20_000;
const RAW_BATCH = 1_000;

/** The tables whose rows hang off a job (src/storage/sql/job-removal.ts). */
const DEPENDENTS = ['checkpoints', 'signals', 'unique_locks', 'schedule_fires', 'retention_hold_jobs'];

/**
 * The histories a sweep removes.
 * - plain: single jobs, as most queues hold them;
 * - realistic: a fifth of the jobs are workflows with 3 checkpoints and 2 consumed signals
 *   each, a tenth carry a lapsed unique lock (an idempotency key past its window).
 */
export type HistoryKind = 'plain' | 'realistic';

/**
 * Finished jobs written straight into Tidemark's tables, as a long-running system would hold
 * them: due for deletion (finished 31 days ago under a 30-day window) or still kept (finished
 * a day ago). Returns the number of rows written (jobs and dependent rows).
 */
async function insertFinished(
  client: pg.Client,
  schema: string,
  count: number,
  due: boolean,
  kind: HistoryKind = 'plain',
): Promise<number> {
  const s = `"${schema}"`;
  const { rows } = await client.query<{ first: string }>(
    `with added as (
       insert into ${s}.jobs (queue, status, data, output, retention, attempts, created_at, started_at,
                              finished_at, purge_after)
       select 'bench', 'completed', jsonb_build_object('n', g), 'null'::jsonb,
              '{"completed": 2592000, "failed": 7776000, "cancelled": 7776000, "expired": 7776000, "consumedSignals": 604800}'::jsonb,
              1, f.at - interval '1 second', f.at - interval '1 second', f.at, f.at + interval '30 days'
         from generate_series(1, $1::int) g,
              lateral (select now() - case when $2::boolean then interval '31 days' else interval '1 day' end
                              + g * interval '1 ms' as at) f
       returning id)
     select min(id)::text as first from added`,
    [count, due],
  );
  let written = count;
  if (kind === 'realistic') {
    const first = rows[0].first;
    // Every fifth job a workflow: 3 checkpoints and 2 consumed signals (past their own window too).
    const checkpoints = await client.query(
      `insert into ${s}.checkpoints (job_id, name, kind, output)
       select j.id, 'step-' || k, 'step', '{"ok": true}'::jsonb
         from ${s}.jobs j, generate_series(1, 3) k
        where j.id >= $1::bigint and (j.id - $1::bigint) % 5 = 0`,
      [first],
    );
    const signals = await client.query(
      `insert into ${s}.signals (job_id, name, payload, created_at, consumed_at, consumed_by, purge_after)
       select j.id, 'approval', '{"by": "ada"}'::jsonb, j.finished_at, j.finished_at, 'wait:approval#' || k,
              j.finished_at + interval '7 days'
         from ${s}.jobs j, generate_series(1, 2) k
        where j.id >= $1::bigint and (j.id - $1::bigint) % 5 = 0`,
      [first],
    );
    // Every tenth job added with an idempotency key whose window has lapsed.
    const locks = await client.query(
      `insert into ${s}.unique_locks (scope, job_id, expires_at)
       select 'key:' || j.id, j.id, j.finished_at + interval '1 day'
         from ${s}.jobs j
        where j.id >= $1::bigint and (j.id - $1::bigint) % 10 = 1`,
      [first],
    );
    written += (checkpoints.rowCount ?? 0) + (signals.rowCount ?? 0) + (locks.rowCount ?? 0);
  }
  return written;
}

/**
 * A long-running system's tables have been vacuumed and analysed by autovacuum and their
 * pages written out by checkpoints: none of that is left to run during the measurement.
 */
async function settleTables(client: pg.Client, schema: string): Promise<void> {
  for (const table of ['jobs', ...DEPENDENTS]) await client.query(`vacuum (analyze) "${schema}".${table}`);
  await client.query('checkpoint');
}

async function rowsIn(client: pg.Client, schema: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `select (${['jobs', ...DEPENDENTS]
      .map((t) => `(select count(*) from "${schema}".${t})`)
      .join(' + ')})::int as n`,
  );
  return rows[0].n;
}

/** A Tidemark schema holding a due history; returns the engine and the rows it holds. */
async function tidemarkWith(kind: HistoryKind, due: number, kept = 0) {
  const opened = await openTidemark('pg');
  opened.tm.createQueue({ name: 'bench' });
  await opened.tm.listQueues();
  const written = await withClient(async (client) => {
    const rows = await insertFinished(client, opened.tm.schema, due, true, kind);
    if (kept > 0) await insertFinished(client, opened.tm.schema, kept, false);
    await settleTables(client, opened.tm.schema);
    return rows;
  });
  return { ...opened, written };
}

/** One timed `tm.sweep()` (default batch 1000); rows/s counts jobs and the dependent rows that went. */
async function timedSweep(tm: Tidemark, due: number, written: number): Promise<number> {
  const started = performance.now();
  const result = await tm.sweep();
  const elapsed = performance.now() - started;
  if (result.jobs !== due) throw new Error(`sweep deleted ${result.jobs} of ${due} jobs`);
  return rate(written, elapsed);
}

/** Tidemark's retention pass over SWEEP_ROWS due jobs of a history. */
export async function tidemarkSweep(kind: HistoryKind): Promise<Figures> {
  const { tm, dispose, written } = await tidemarkWith(kind, SWEEP_ROWS);
  try {
    const rowsPerSecond = await timedSweep(tm, SWEEP_ROWS, written);
    const left = await withClient((client) => rowsIn(client, tm.schema));
    if (left !== 0) throw new Error(`the sweep left ${left} rows`);
    return { rowsPerSecond };
  } finally {
    await dispose();
  }
}

/**
 * The same due rows removed by bare 1000-row DELETE statements, the least work PostgreSQL
 * can do for them, on Tidemark's tables (which no foreign key references):
 * - `jobs`: the jobs alone (what the issue names the physical reference);
 * - `dependents`: each statement also deletes the batch's dependent rows, set-based (what
 *   any correct removal of the realistic history must do);
 * - `cascade`: the jobs alone, after the five `ON DELETE CASCADE` foreign keys of the
 *   earlier design are put back: the cost migration 0003 removed.
 */
export async function rawBatchedDelete(
  kind: HistoryKind,
  how: 'jobs' | 'dependents' | 'cascade',
): Promise<Figures> {
  const { tm, dispose, written } = await tidemarkWith(kind, SWEEP_ROWS);
  const s = `"${tm.schema}"`;
  try {
    const elapsed = await withClient(async (client) => {
      if (how === 'cascade') {
        for (const table of ['checkpoints', 'signals', 'unique_locks', 'schedule_fires']) {
          await client.query(
            `alter table ${s}.${table} add foreign key (job_id) references ${s}.jobs (id) on delete cascade`,
          );
        }
        await client.query(
          `alter table ${s}.jobs add foreign key (parent_id) references ${s}.jobs (id) on delete cascade`,
        );
        await client.query('checkpoint');
      }
      const dependents =
        how === 'dependents'
          ? DEPENDENTS.map(
              (t) => `, d_${t} as (delete from ${s}.${t} x where x.job_id = any(array(select id from gone)))`,
            ).join('')
          : '';
      const started = performance.now();
      for (;;) {
        const result = await client.query({
          name: `raw_${how}`,
          text: `with due as (select id from ${s}.jobs where purge_after <= now() order by purge_after limit $1),
                 gone as (delete from ${s}.jobs j using due where j.id = due.id returning j.id)${dependents}
                 select count(*)::int as n from gone`,
          values: [RAW_BATCH],
        });
        if (result.rows[0].n < RAW_BATCH) break;
      }
      return performance.now() - started;
    });
    const left = await withClient(async (client) =>
      how === 'jobs'
        ? (await client.query(`select count(*)::int as n from ${s}.jobs`)).rows[0].n
        : rowsIn(client, tm.schema),
    );
    if (left !== 0 && how !== 'jobs') throw new Error(`raw delete left ${left} rows`);
    return { rowsPerSecond: rate(how === 'jobs' ? SWEEP_ROWS : written, elapsed) };
  } finally {
    await dispose();
  }
}

/** Tidemark's retention pass on embedded PGlite (memory://), plain history. */
export async function tidemarkSweepPglite(): Promise<Figures> {
  const { tm, dispose } = await openTidemark('pglite');
  try {
    tm.createQueue({ name: 'bench' });
    await tm.listQueues();
    const driver = runnerOf(engineOf(tm).storage).driver;
    const s = `"${tm.schema}"`;
    await driver.query(
      `insert into ${s}.jobs (queue, status, data, output, retention, attempts, finished_at, purge_after)
       select 'bench', 'completed', jsonb_build_object('n', g), 'null'::jsonb, '{"completed": 2592000}'::jsonb, 1,
              now() - interval '31 days' + g * interval '1 ms', now() - interval '1 day' + g * interval '1 ms'
         from generate_series(1, $1::int) g`,
      [SWEEP_ROWS],
    );
    await driver.exec(`vacuum (analyze) ${s}.jobs`);
    return { rowsPerSecond: await timedSweep(tm, SWEEP_ROWS, SWEEP_ROWS) };
  } finally {
    await dispose();
  }
}

/**
 * How the cost grows with the table: the same 200,000-row sweep on a table that holds only
 * them, then on one that also holds KEPT_ROWS finished rows not yet due, then alone again,
 * in one process; `alone` is the mean of the two, so drift during the run cancels out.
 */
export async function sweepBesideKeptRows(): Promise<Figures> {
  const sweepAlone = async () => {
    const small = await tidemarkWith('plain', SWEEP_ROWS);
    try {
      return await timedSweep(small.tm, SWEEP_ROWS, small.written);
    } finally {
      await small.dispose();
    }
  };
  const before = await sweepAlone();
  const big = await tidemarkWith('plain', SWEEP_ROWS, KEPT_ROWS);
  let beside: number;
  try {
    beside = await timedSweep(big.tm, SWEEP_ROWS, big.written);
  } finally {
    await big.dispose();
  }
  const after = await sweepAlone();
  return { rowsPerSecond: beside, alone: (before + after) / 2 };
}

/**
 * What a sweep costs a busy worker: the drain rate of CONCURRENT_DRAIN_JOBS no-op jobs, on a
 * table that holds CONCURRENT_SWEEP_ROWS due rows, with and without a sweep of those rows
 * running beside it (in one process, sweep first started). While both run, pg_stat_activity
 * is sampled every 20 ms for worker statements (claims, completions) waiting on a lock that
 * a sweep statement holds.
 */
export async function drainBesideSweep(): Promise<Figures> {
  const quiet = await drainWithHistory(false);
  const swept = await drainWithHistory(true);
  return { jobsPerSecond: swept.rate, quiet: quiet.rate, claimLockWaits: swept.claimLockWaits };
}

async function drainWithHistory(sweeping: boolean): Promise<{ rate: number; claimLockWaits: number }> {
  const { tm, dispose } = await tidemarkWith('plain', CONCURRENT_SWEEP_ROWS);
  try {
    let done = 0;
    tm.createQueue({
      name: 'drain',
      retention: false,
      handler: () => {
        done++;
      },
    });
    for (let i = 0; i < CONCURRENT_DRAIN_JOBS; i += 1_000) {
      await tm.addJobs(Array.from({ length: 1_000 }, (_, k) => ({ queue: 'drain', data: { n: i + k } })));
    }
    const worker = tm.worker({ queues: ['drain'], concurrency: 10, sweep: false, uniqueLockSweep: false });
    let claimLockWaits = 0;
    let sampling = true;
    const sampler = withClient(async (client) => {
      while (sampling) {
        // A worker statement (claim, completion, heartbeat) waiting on a lock that a sweep
        // statement holds; the sweep's statements are the ones that read the retention gate.
        const { rows } = await client.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity w
            where w.wait_event_type = 'Lock' and w.query like '%' || $1 || '%'
              and w.query not like '%retention_control%'
              and exists (select 1 from pg_stat_activity b
                           where b.pid = any(pg_blocking_pids(w.pid)) and b.query like '%retention_control%')`,
          [tm.schema],
        );
        claimLockWaits += rows[0].n;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    const sweep = sweeping ? tm.sweep() : Promise.resolve(null);
    const started = performance.now();
    await worker.start();
    await until(() => done >= CONCURRENT_DRAIN_JOBS);
    const elapsed = performance.now() - started;
    await worker.stop();
    const result = await sweep;
    sampling = false;
    await sampler;
    if (result && result.jobs !== CONCURRENT_SWEEP_ROWS) throw new Error(`sweep deleted ${result.jobs}`);
    return { rate: rate(CONCURRENT_DRAIN_JOBS, elapsed), claimLockWaits };
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
  return withClient(async (client) => {
    await insertFinished(client, schema, HISTORY_ROWS, false);
    await settleTables(client, schema);
  });
}
