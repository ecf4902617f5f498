import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { JOB_DEPENDENTS } from '../../src/storage/sql/job-removal.js';
import { CURSOR_START } from '../../src/storage/sql/retention-batch.js';
import * as controls from '../../src/storage/sql/retention-controls.js';
import { purgeFinished } from '../../src/storage/sql/retention-purge.js';
import * as sql from '../../src/storage/sql/retention-sweep.js';
import { rawQuery } from '../support/databases.js';
import { describePostgresOnly } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Scale on PostgreSQL: the plan of the sweep's delete, and a 100,000-row sweep beside a
 * busy worker. (PGlite runs the same SQL but is one session: nothing runs beside a sweep.)
 */
describePostgresOnly('retention at scale', ({ open }) => {
  const engine = () => open({ logger: silentLogger });

  /** `due` finished single-job trees past their purge time, plus `other` rows that are not due. */
  async function fill(tm: Tidemark, due: number, other = 0): Promise<void> {
    const s = `"${tm.schema}"`;
    await rawQuery(
      tm,
      `insert into ${s}.jobs (queue, status, data, finished_at, purge_after, retention)
         select 'bulk', 'completed', jsonb_build_object('n', g), now() - interval '40 days',
                now() - interval '10 days' + g * interval '1 millisecond', '{"completed": 2592000}'
           from generate_series(1, $1::int) g`,
      [due],
    );
    await rawQuery(
      tm,
      `insert into ${s}.jobs (queue, status, data, finished_at, purge_after)
         select 'bulk', case when g % 2 = 0 then 'pending' else 'completed' end, '{}',
                case when g % 2 = 0 then null else now() end,
                case when g % 4 = 1 then now() + interval '30 days' end
           from generate_series(1, $1::int) g`,
      [other],
    );
    await rawQuery(tm, `analyze ${s}.jobs`);
  }

  async function plan(tm: Tidemark, text: string, values: unknown[]): Promise<string> {
    const rows = await rawQuery<{ 'QUERY PLAN': string }>(tm, `explain ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  test('the sweep reads the purge_after index and deletes by primary key, with no scan of jobs', async () => {
    const tm = await engine();
    await fill(tm, 5_000, 20_000);
    const params = { ...CURSOR_START };
    const text = await plan(
      tm,
      sql.deleteDueTrees(1_000).text(tm.schema),
      sql.deleteDueTrees(1_000).values(params),
    );
    assert.match(text, /Index (Only )?Scan using jobs_purge_after_idx on jobs r\b/);
    assert.match(text, /Index Scan using jobs_pkey on jobs j/);
    assert.doesNotMatch(text, /Seq Scan on jobs/, text);
    const purge = { queue: null, statuses: ['completed'], older_than_seconds: 0, ...params };
    const purgeText = await plan(
      tm,
      purgeFinished(1_000).text(tm.schema),
      purgeFinished(1_000).values(purge),
    );
    assert.match(purgeText, /Index (Only )?Scan using jobs_finished_idx on jobs r\b/);
    assert.doesNotMatch(purgeText, /Seq Scan on jobs/, purgeText);
  });

  test('every statement that deletes jobs or their rows reads indexes: no scan of jobs or of a dependent table', async () => {
    const tm = await engine();
    await fill(tm, 5_000, 20_000);
    const s = `"${tm.schema}"`;
    // Dependent rows for a fifth of the jobs, as a history with workflows holds them.
    await rawQuery(
      tm,
      `insert into ${s}.checkpoints (job_id, name) select id, 'a' from ${s}.jobs where id % 5 = 0`,
    );
    await rawQuery(
      tm,
      `insert into ${s}.signals (job_id, name, consumed_at, purge_after)
       select id, 'go', now() - interval '2 days', now() + case when id % 50 = 0 then -1 else 1 end * interval '1 day'
         from ${s}.jobs where id % 5 = 0`,
    );
    await rawQuery(
      tm,
      `insert into ${s}.unique_locks (scope, job_id, expires_at)
       select 'k' || id, id, now() + case when id % 100 = 0 then -1 else 1 end * interval '1 day'
         from ${s}.jobs where id % 10 = 0`,
    );
    await rawQuery(
      tm,
      `insert into ${s}.schedule_fires (schedule_name, fire_at, job_id) select 's', now() - id * interval '1 s', id from ${s}.jobs where id % 5 = 0`,
    );
    await rawQuery(
      tm,
      `insert into ${s}.job_logs (job_id, attempt, level, message, purge_after)
       select id, 1, 'info', 'line ' || g, case when id % 15 = 0 then now() - interval '1 hour' end
         from ${s}.jobs cross join generate_series(1, 3) g where id % 5 = 0`,
    );
    // A workflow's run history on one job in five: its rows leave with their job, by its key.
    await rawQuery(
      tm,
      `insert into ${s}.run_history (job_id, seq, attempt, kind, at)
       select id, g, 1, 'step', now() from ${s}.jobs cross join generate_series(1, 4) g where id % 5 = 0`,
    );
    // Dependency edges on one job in five (a dependent on the job before it): they leave with
    // their dependent, by the key led by `job_id`, and the rule that keeps a needed dependency
    // probes them by `dependency_id`.
    await rawQuery(
      tm,
      `insert into ${s}.job_dependencies (job_id, dependency_id, settled)
       select id, id - 1, true from ${s}.jobs where id % 5 = 0`,
    );
    // Callback tokens on one job in five, completed: they leave with their job, by the key led
    // by `job_id` (an empty table reads as a scan whatever its indexes).
    await rawQuery(
      tm,
      `insert into ${s}.job_tokens (id, job_id, name, expires_at, state, settled_at)
       select gen_random_uuid(), id, 'approval', now() + interval '1 day', 'completed', now()
         from ${s}.jobs where id % 5 = 0`,
    );
    // Holds on 2,000 jobs that are not due, so that the hold tables are not tiny either.
    await rawQuery(
      tm,
      `with hold as (insert into ${s}.retention_holds (reason) values ('audit') returning id)
       insert into ${s}.retention_hold_jobs (hold_id, job_id, tree_id)
       select hold.id, j.id, j.id from hold, (select id from ${s}.jobs where purge_after is null limit 2000) j`,
    );
    for (const table of ['jobs', 'retention_holds', ...JOB_DEPENDENTS])
      await rawQuery(tm, `analyze ${s}.${table}`);
    const cursor = { ...CURSOR_START };
    const statements: [string, string, unknown[]][] = [
      ['sweep batch', sql.deleteDueTrees(1_000).text(tm.schema), sql.deleteDueTrees(1_000).values(cursor)],
      ['archive lock', sql.lockDueTrees(1_000).text(tm.schema), sql.lockDueTrees(1_000).values(cursor)],
      [
        'archive delete',
        sql.deleteJobsById.text(tm.schema),
        sql.deleteJobsById.values({ ids: Array.from({ length: 1_000 }, (_, i) => String(i + 1)) }),
      ],
      [
        'purge batch',
        purgeFinished(1_000).text(tm.schema),
        purgeFinished(1_000).values({
          queue: null,
          statuses: ['completed'],
          older_than_seconds: 0,
          ...cursor,
        }),
      ],
      ['consumed signals', sql.deleteConsumedSignals(1_000).text(tm.schema), []],
      ['log lines', sql.deleteDueLogLines(1_000).text(tm.schema), []],
      ['expired locks', sql.deleteExpiredUniqueLocks(1_000).text(tm.schema), []],
      [
        'explicit delete',
        controls.deleteSubtreeChecked.text(tm.schema),
        controls.deleteSubtreeChecked.values({ id: '5', single: false }),
      ],
    ];
    const tables = ['jobs', ...JOB_DEPENDENTS].join('|');
    for (const [name, text, values] of statements) {
      const shown = await plan(tm, text, values);
      assert.doesNotMatch(shown, new RegExp(`Seq Scan on (${tables})\\b`), `${name}:\n${shown}`);
    }
  });

  test('with thousands of holds the sweep, the purge and the signal sweep stay index-driven', async () => {
    const tm = await engine();
    await fill(tm, 5_000, 20_000);
    const s = `"${tm.schema}"`;
    // 2,000 holds naming 3 jobs each, and 50 queue holds on queues other than the swept one.
    await rawQuery(
      tm,
      `insert into ${s}.retention_holds (reason, queue)
         select 'hold ' || g, case when g > 2000 then 'held-' || g end from generate_series(1, 2050) g`,
    );
    await rawQuery(
      tm,
      `insert into ${s}.retention_hold_jobs (hold_id, job_id, tree_id)
         select h.id, j.id, j.id
           from ${s}.retention_holds h
           join lateral (select id from ${s}.jobs where id % 2000 = h.id % 2000 limit 3) j on true
          where h.queue is null`,
    );
    await rawQuery(
      tm,
      `insert into ${s}.signals (job_id, name, consumed_at, purge_after)
         select id, 'go', now() - interval '2 days', now() - interval '1 day' from ${s}.jobs where id % 10 = 0`,
    );
    for (const table of ['jobs', 'retention_holds', 'retention_hold_jobs', 'signals']) {
      await rawQuery(tm, `analyze ${s}.${table}`);
    }
    const params = { ...CURSOR_START };
    const sweep = await plan(
      tm,
      sql.deleteDueTrees(1_000).text(tm.schema),
      sql.deleteDueTrees(1_000).values(params),
    );
    const purge = await plan(
      tm,
      purgeFinished(1_000).text(tm.schema),
      purgeFinished(1_000).values({ queue: null, statuses: ['completed'], older_than_seconds: 0, ...params }),
    );
    const signals = await plan(
      tm,
      sql.deleteConsumedSignals(1_000).text(tm.schema),
      sql.deleteConsumedSignals(1_000).values({}),
    );
    for (const [name, text] of [
      ['sweep', sweep],
      ['purge', purge],
      ['signal sweep', signals],
    ]) {
      assert.doesNotMatch(
        text,
        /Seq Scan on (jobs|retention_hold_jobs|retention_holds)\b/,
        `${name}:\n${text}`,
      );
    }
    assert.match(sweep, /retention_hold_jobs_tree_idx/, sweep);
    assert.match(sweep, /retention_holds_queue_idx/, sweep);
    assert.match(signals, /retention_hold_jobs_tree_idx/, signals);
    const kept = await tm.sweep();
    const [held] = await rawQuery<{ n: number }>(
      tm,
      `select count(*)::int as n from ${s}.jobs j
        where j.purge_after <= now()
          and exists (select 1 from ${s}.retention_hold_jobs h where h.tree_id = j.id)`,
    );
    assert.ok(held.n > 0);
    assert.equal(kept.jobs, 5_000 - held.n, 'every due job went but the held ones');
  });

  test('a sweep of 100,000 due rows leaves a busy worker completing jobs throughout', async () => {
    const tm = await engine();
    await fill(tm, 100_000);
    let chaining = true;
    tm.createQueue({
      name: 'live',
      handler: async () => {
        // Each job adds the next, so the worker always has work while the sweep runs.
        if (chaining) await tm.addJob({ queue: 'live' });
        return 'ok';
      },
    });
    let completed = 0;
    tm.on('job:completed', () => completed++);
    const worker = fastWorker(tm, { concurrency: 4 });
    await tm.addJobs(Array.from({ length: 4 }, () => ({ queue: 'live' })));
    await worker.start();
    await waitFor('the worker to be busy', () => completed >= 20);
    const before = completed;
    const result = await tm.sweep();
    const during = completed - before;
    chaining = false;
    await worker.stop();
    assert.equal(result.error, undefined);
    assert.equal(result.jobs, 100_000);
    assert.ok(during > 0, 'no job completed while the sweep ran');
    const [left] = await rawQuery<{ n: number }>(
      tm,
      `select count(*)::int as n from "${tm.schema}".jobs where queue = 'bulk'`,
    );
    assert.equal(left.n, 0);
    const [record] = await tm.listSweeps(1);
    // 100 full batches and a short last one at the most; a slow batch halves the next (the
    // pacing that keeps a busy process's event loop turning), which only adds batches.
    assert.ok(record.batches >= 101, `${record.batches} batches for 100,000 rows of batch size 1,000`);
    assert.equal(record.jobs, 100_000);
  });
});
