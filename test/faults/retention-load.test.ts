import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { silentLogger, Tidemark, type Worker } from '../../src/index.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { findInconsistencies } from './support/consistency.js';
import { adminClient, describePg, dropFaultSchema, faultSchema, urlFor } from './support/pg.js';

const DUE_SINGLES = 100_000;
const DUE_TREES = 20_000;
const DUE_CHILDREN = 4;
const DUE = DUE_SINGLES + DUE_TREES * (1 + DUE_CHILDREN);
const FLOWS = 300;
const LOAD_JOBS = 3_000;

/**
 * Rows written with generate_series: 200,000 due rows (singles and whole due trees) beside
 * every kind of row retention must keep. Each `kind` in `data` says why a row exists.
 * Finished rows get purge_after = finished_at + their frozen window, as the engine writes it.
 */
function seedSql(s: string): string {
  const day = `'{"completed":86400,"failed":86400,"cancelled":86400,"expired":86400,"consumedSignals":86400}'::jsonb`;
  const long = `'{"completed":900000,"failed":900000,"cancelled":900000,"expired":900000}'::jsonb`;
  const status = `(array['completed','failed','cancelled','expired'])[1 + i % 4]`;
  return `
    -- due singles, a tenth with a consumed signal past its window
    insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after)
    select 'old', ${status}, jsonb_build_object('kind', 'due', 'i', i), 1,
           now() - interval '40 days', ${day}, now() - interval '39 days'
      from generate_series(1, ${DUE_SINGLES}) i;
    insert into ${s}.signals (job_id, name, payload, consumed_at, consumed_by, purge_after)
    select id, 'go', '{}', now() - interval '20 days', 'wait:go#1', now() - interval '19 days'
      from ${s}.jobs where data ->> 'kind' = 'due' and id % 10 = 0;

    -- due trees: every member finished and due
    with roots as (
      insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after)
      select 'old', ${status}, jsonb_build_object('kind', 'due', 'tree', i), 1,
             now() - interval '40 days', ${day}, now() - interval '39 days'
        from generate_series(1, ${DUE_TREES}) i
      returning id)
    insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after, parent_id, root_id, parent_step)
    select 'old', 'completed', jsonb_build_object('kind', 'due', 'child', k), 1,
           now() - interval '40 days', ${day}, now() - interval '39 days', r.id, r.id, 'child#' || k
      from roots r cross join generate_series(1, ${DUE_CHILDREN}) k;

    -- pinned: due, but a live unique lock references them (R4)
    with pinned as (
      insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after)
      select 'old', 'completed', jsonb_build_object('kind', 'pinned', 'i', i), 1,
             now() - interval '40 days', ${day}, now() - interval '39 days'
        from generate_series(1, 2000) i
      returning id)
    insert into ${s}.unique_locks (scope, job_id, expires_at)
    select 'pin:' || id, id, now() + interval '1 hour' from pinned;

    -- due trees with one pinned child: kept whole
    with roots as (
      insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after)
      select 'old', 'completed', jsonb_build_object('kind', 'pinned-tree', 'i', i), 1,
             now() - interval '40 days', ${day}, now() - interval '39 days'
        from generate_series(1, 500) i
      returning id),
    children as (
      insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after, parent_id, root_id, parent_step)
      select 'old', 'completed', jsonb_build_object('kind', 'pinned-tree', 'child', k), 1,
             now() - interval '40 days', ${day}, now() - interval '39 days', r.id, r.id, 'child#' || k
        from roots r cross join generate_series(1, 2) k
      returning id, parent_step)
    insert into ${s}.unique_locks (scope, job_id, expires_at)
    select 'pin:' || id, id, now() + interval '1 hour' from children where parent_step = 'child#1';

    -- incomplete trees: a due top with a pending child and a due finished child (R3)
    with roots as (
      insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after)
      select 'old', 'completed', jsonb_build_object('kind', 'incomplete-tree', 'i', i), 1,
             now() - interval '40 days', ${day}, now() - interval '39 days'
        from generate_series(1, 1000) i
      returning id)
    insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after, parent_id, root_id, parent_step)
    select 'old', case k when 1 then 'pending' else 'completed' end, jsonb_build_object('kind', 'incomplete-tree', 'child', k),
           case k when 1 then 0 else 1 end,
           case k when 1 then null else now() - interval '40 days' end, ${day},
           case k when 1 then null else now() - interval '39 days' end, r.id, r.id, 'child#' || k
      from roots r cross join generate_series(1, 2) k;

    -- a waiting top (still running) whose children finished long ago
    with roots as (
      insert into ${s}.jobs (queue, status, data, attempts, run_at, wait, retention)
      select 'old', 'waiting', jsonb_build_object('kind', 'running-top', 'i', i), 1, 'infinity',
             '{"kind":"child"}', ${day}
        from generate_series(1, 500) i
      returning id)
    insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after, parent_id, root_id, parent_step)
    select 'old', 'failed', jsonb_build_object('kind', 'running-top', 'child', k), 1,
           now() - interval '40 days', ${day}, now() - interval '39 days', r.id, r.id, 'child#' || k
      from roots r cross join generate_series(1, 2) k;

    -- finished, not yet due; and kept forever (no window)
    insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention, purge_after)
    select 'old', ${status}, jsonb_build_object('kind', 'not-due', 'i', i), 1,
           now() - interval '1 day', ${long}, now() - interval '1 day' + interval '900000 seconds'
      from generate_series(1, 2000) i;
    insert into ${s}.jobs (queue, status, data, attempts, finished_at, retention)
    select 'old', ${status}, jsonb_build_object('kind', 'forever', 'i', i), 1, now() - interval '400 days', '{}'
      from generate_series(1, 1000) i;
    -- consumed signals on kept jobs: half past their window (deleted), half not (kept)
    insert into ${s}.signals (job_id, name, payload, consumed_at, consumed_by, purge_after)
    select id, 'go', '{}', now() - interval '10 days', 'wait:go#1',
           case when id % 2 = 0 then now() - interval '3 days' else now() + interval '1 day' end
      from ${s}.jobs where data ->> 'kind' = 'not-due';

    -- in flight in a queue no worker here serves, waiting ones holding a pending signal
    insert into ${s}.jobs (queue, status, data, attempts, run_at, wait, paused_from, retention)
    select 'old', (array['pending','retry','paused','waiting'])[1 + i % 4], jsonb_build_object('kind', 'in-flight', 'i', i),
           case when i % 4 = 1 then 1 else 0 end, now() + interval '1 day',
           case when i % 4 = 3 then '{"kind":"signal","names":["go"]}'::jsonb end,
           case when i % 4 = 2 then 'pending' end, ${day}
      from generate_series(1, 4000) i;
    insert into ${s}.signals (job_id, name, payload)
    select id, 'go', '{"pending":true}' from ${s}.jobs where data ->> 'kind' = 'in-flight' and status = 'waiting';
    analyze ${s}.jobs;
    analyze ${s}.signals;`;
}

describePg('retention safety under load: a sweep of 200,000 due rows beside busy workers', () => {
  const run = `tm_faults_load_${randomBytes(3).toString('hex')}`;
  const schema = faultSchema();
  const s = `"${schema}"`;
  let admin: pg.Client;
  let tm: Tidemark;
  const engines: Tidemark[] = [];
  const workers: Worker[] = [];
  let keepJobs: string[] = [];
  let pendingSignals: string[] = [];
  let keptConsumedSignals: string[] = [];
  const flows: string[] = [];
  const loadJobs: string[] = [];
  let swept = { jobs: 0, signals: 0 };
  const sweepStats = { ms: 0, mainJobs: 0, workDuring: 0 };
  let passed = 0;

  const q = async <Row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await admin.query(text, params)).rows as Row[];
  const defineQueues = (engine: Tidemark, withHandlers: boolean) => {
    engine.createQueue({
      name: 'load',
      handler: withHandlers
        ? async () => new Promise((resolve) => setTimeout(() => resolve('ok'), 2))
        : undefined,
    });
    engine.createQueue({
      name: 'flows',
      signals: { go: 2 },
      handler: withHandlers
        ? async (_job, ctx) => {
            const got = await ctx.waitForSignals('go', 2);
            return ctx.step('after', () => got.payloads.length);
          }
        : undefined,
    });
  };

  before(async () => {
    admin = await adminClient(run);
    tm = await Tidemark.open({ database: urlFor(`${run}_main`), schema, logger: silentLogger, poolSize: 4 });
    defineQueues(tm, false);
    await tm.listQueues();
    await admin.query(seedSql(s));
    const open = (name: string) =>
      Tidemark.open({
        database: urlFor(`${run}_${name}`),
        schema,
        logger: silentLogger,
        poolSize: 4,
        migrate: false,
      });
    // The workflows reach their wait on a worker that never sweeps, before the snapshot.
    const setup = await open('setup');
    engines.push(setup);
    defineQueues(setup, true);
    const setupWorker = setup.worker({
      concurrency: 50,
      pollIntervalSeconds: 0.1,
      sweep: false,
      uniqueLockSweep: false,
    });
    await setupWorker.start();
    flows.push(
      ...(await tm.addJobs(Array.from({ length: FLOWS }, (_, i) => ({ queue: 'flows', data: { i } })))).map(
        (r) => r.id,
      ),
    );
    await waitFor(
      'every workflow to wait for its signals',
      async () =>
        Number(
          (
            await q<{ n: number }>(
              `select count(*)::int as n from ${s}.jobs where queue = 'flows' and status = 'waiting'`,
            )
          )[0].n,
        ) === FLOWS,
      { timeoutMs: 60_000 },
    );
    await setupWorker.stop();
    // One of two signals each: pending until the second arrives.
    for (const id of flows) assert.deepEqual(await tm.signal(id, 'go', { first: true }), { delivered: true });

    keepJobs = (
      await q<{ id: string }>(
        `select id::text as id from ${s}.jobs where data ->> 'kind' is distinct from 'due'`,
      )
    ).map((r) => r.id);
    pendingSignals = (
      await q<{ id: string }>(`select id::text as id from ${s}.signals where consumed_at is null`)
    ).map((r) => r.id);
    keptConsumedSignals = (
      await q<{ id: string }>(
        `select id::text as id from ${s}.signals where consumed_at is not null and purge_after > now()`,
      )
    ).map((r) => r.id);
    const [due] = await q<{ n: number }>(
      `select count(*)::int as n from ${s}.jobs where data ->> 'kind' = 'due'`,
    );
    assert.equal(due.n, DUE);

    for (let i = 0; i < 4; i++) {
      const engine = await open(`w${i}`);
      defineQueues(engine, true);
      engines.push(engine);
      // Each worker also runs the periodic sweep (one of them wins the turn), beside tm.sweep().
      workers.push(
        engine.worker({
          concurrency: 10,
          pollIntervalSeconds: 0.1,
          tickIntervalSeconds: 0.5,
          sweep: { intervalSeconds: 3_600, batchSize: 500 },
        }),
      );
    }
    for (const worker of workers) await worker.start();

    // Under load: adds and signals while two sweepers (tm.sweep and a worker's turn) run.
    const load = (async () => {
      for (let i = 0; i < LOAD_JOBS / 100; i++) {
        loadJobs.push(
          ...(await tm.addJobs(Array.from({ length: 100 }, () => ({ queue: 'load' })))).map((r) => r.id),
        );
        const id = flows[i];
        if (id) assert.deepEqual(await tm.signal(id, 'go', { second: true }), { delivered: true });
        await sleep(20);
      }
    })();
    const t0 = Date.now();
    const result = await tm.sweep({ batchSize: 1_000 });
    sweepStats.ms = Date.now() - t0;
    sweepStats.mainJobs = result.jobs;
    sweepStats.workDuring = Number(
      (
        await q<{ n: number }>(
          `select count(*)::int as n from ${s}.jobs where queue in ('load', 'flows') and status = 'completed'`,
        )
      )[0].n,
    );
    await load;
    assert.equal(result.error, undefined);
    await waitFor(
      'the periodic sweeps to finish',
      async () =>
        Number(
          (
            await q<{ n: number }>(`select count(*)::int as n from ${s}.jobs where data ->> 'kind' = 'due'`)
          )[0].n,
        ) === 0,
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    await waitFor(
      'the load jobs to complete',
      async () =>
        Number(
          (
            await q<{ n: number }>(
              `select count(*)::int as n from ${s}.jobs where queue = 'load' and status <> 'completed'`,
            )
          )[0].n,
        ) === 0,
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    // Stopping waits for a periodic sweep in progress, so every pass has recorded what it deleted.
    for (const worker of workers) await worker.stop();
    const [totals] = await q<{ jobs: number; signals: number }>(
      `select coalesce(sum(jobs), 0)::int as jobs, coalesce(sum(signals), 0)::int as signals from ${s}.sweeps`,
    );
    swept = totals;
  });

  after(async () => {
    for (const worker of workers) await worker.stop().catch(() => {});
    for (const engine of engines) await engine.close().catch(() => {});
    await tm?.close();
    if (admin) {
      if (passed === 4) await dropFaultSchema(admin, schema);
      await admin.end();
    }
  });

  test('every due row was deleted, each exactly once across the concurrent sweeps', async (t) => {
    const [left] = await q<{ n: number }>(
      `select count(*)::int as n from ${s}.jobs where data ->> 'kind' = 'due'`,
    );
    assert.equal(left.n, 0);
    assert.equal(swept.jobs, DUE, 'the sweeps together reported deleting exactly the due jobs');
    t.diagnostic(
      `${swept.jobs} jobs and ${swept.signals} consumed signals deleted; tm.sweep() took ${sweepStats.ms} ms ` +
        `and deleted ${sweepStats.mainJobs}, the workers' periodic sweep the rest; ` +
        `${sweepStats.workDuring} jobs and workflows completed while it ran`,
    );
    passed++;
  });

  test('no in-flight job, pinned job, incomplete tree or undue row is missing', async () => {
    const present = new Set(
      (
        await q<{ id: string }>(`select id::text as id from ${s}.jobs where id = any($1::bigint[])`, [
          keepJobs,
        ])
      ).map((r) => r.id),
    );
    const missing = keepJobs.filter((id) => !present.has(id));
    assert.deepEqual(missing.slice(0, 20), [], `${missing.length} kept jobs are gone`);
    const loadPresent = await q<{ n: number }>(
      `select count(*)::int as n from ${s}.jobs where id = any($1::bigint[])`,
      [loadJobs],
    );
    assert.equal(loadPresent[0].n, LOAD_JOBS);
    passed++;
  });

  test('no pending signal and no consumed signal inside its window is missing', async () => {
    const ids = [...pendingSignals, ...keptConsumedSignals];
    const rows = await q<{ id: string }>(
      `select id::text as id from ${s}.signals where id = any($1::bigint[])`,
      [ids],
    );
    assert.equal(rows.length, ids.length, `${ids.length - rows.length} signals are gone`);
    // Signals of the workflows that got their second one were consumed by their wait, not deleted.
    const [flowSignals] = await q<{ pending: number; consumed: number }>(
      `select count(*) filter (where consumed_at is null)::int as pending,
              count(*) filter (where consumed_at is not null)::int as consumed
         from ${s}.signals where job_id = any($1::bigint[])`,
      [flows],
    );
    assert.equal(flowSignals.pending + flowSignals.consumed, FLOWS + LOAD_JOBS / 100);
    passed++;
  });

  test('the tables are consistent afterwards', async () => {
    assert.deepEqual(await findInconsistencies(async (text, params) => q(text, params), schema), []);
    passed++;
  });
});
