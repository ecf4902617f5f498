import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger, type Tidemark } from '../../src/index.js';
import * as finishSql from '../../src/storage/sql/finish.js';
import * as maintenanceSql from '../../src/storage/sql/maintenance.js';
import * as sql from '../../src/storage/sql/worker.js';
import * as workflowSql from '../../src/storage/sql/workflow.js';
import { rawQuery } from '../support/databases.js';
import { describePostgresOnly } from '../support/each-driver.js';

/**
 * The worker's hot statements on PostgreSQL keep their cost proportional to their own batch,
 * not to how many jobs other workers are running.
 */
describePostgresOnly('worker statement plans', ({ open }) => {
  const engine = () => open({ logger: silentLogger });

  /** 20,000 attempts running that the statistics do not show; returns their ids and tokens. */
  async function busyCluster(tm: Tidemark): Promise<{ id: string; token: string }[]> {
    const s = `"${tm.schema}"`;
    // Statistics taken while the jobs were pending, as after a bulk add; then workers claim
    // them all, so many attempts run that the statistics do not show.
    await rawQuery(tm, `insert into ${s}.jobs (queue) select 'busy' from generate_series(1, 20000)`);
    await rawQuery(tm, `analyze ${s}.jobs`);
    return rawQuery<{ id: string; token: string }>(
      tm,
      `update ${s}.jobs
            set status = 'active', attempts = 1, lock_token = gen_random_uuid(), locked_by = 'w',
                locked_until = now() + interval '1 minute', started_at = now()
         returning id::text as id, lock_token::text as token`,
    );
  }

  async function plan(tm: Tidemark, text: string, values: unknown[]): Promise<string> {
    const rows = await rawQuery<{ 'QUERY PLAN': string }>(tm, `explain ${text}`, values);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  function assertByPrimaryKey(text: string): void {
    assert.match(text, /jobs_pkey/, text);
    assert.doesNotMatch(text, /jobs_stalled_idx|Seq Scan on jobs/, text);
  }

  test('a batch of outcomes reads its jobs by primary key, not every active job', async () => {
    const tm = await engine();
    const active = await busyCluster(tm);
    const outcomes = active.slice(0, 200).map((row) => ({
      id: row.id,
      token: row.token,
      ok: true,
      output: null,
      error: null,
      retry_delay: null,
      drop_checkpoints: false,
    }));
    const outcomesJson = JSON.stringify(outcomes);
    assertByPrimaryKey(
      await plan(
        tm,
        finishSql.finishAttempts.text(tm.schema),
        finishSql.finishAttempts.values({ outcomes: outcomesJson }),
      ),
    );
    // A batch with a workflow's run in it writes its history by the job's key as well.
    const history = [{ kind: 'run', at: new Date().toISOString(), detail: {} }];
    const withHistory = JSON.stringify(outcomes.map((o, i) => (i === 0 ? { ...o, history } : o)));
    assertByPrimaryKey(
      await plan(
        tm,
        finishSql.finishAttemptsWithHistory.text(tm.schema),
        finishSql.finishAttemptsWithHistory.values({ outcomes: withHistory }),
      ),
    );
  });

  test('heartbeats, releases, suspensions and checkpoints read their jobs by primary key', async () => {
    const tm = await engine();
    const active = await busyCluster(tm);
    const ids = active.slice(0, 200).map((a) => a.id);
    const tokens = active.slice(0, 200).map((a) => a.token);
    assertByPrimaryKey(
      await plan(
        tm,
        sql.extendLocks.text(tm.schema),
        sql.extendLocks.values({ ids, tokens, lock_seconds: 30 }),
      ),
    );
    assertByPrimaryKey(
      await plan(tm, sql.releaseJobs.text(tm.schema), sql.releaseJobs.values({ ids, tokens })),
    );
    const one = { id: ids[0], token: tokens[0] };
    assertByPrimaryKey(
      await plan(
        tm,
        sql.suspendJob.text(tm.schema),
        sql.suspendJob.values({ ...one, wait: '{"kind":"sleep"}', wake_at: null, history: null }),
      ),
    );
    assertByPrimaryKey(
      await plan(
        tm,
        finishSql.completeOne.text(tm.schema),
        finishSql.completeOne.values({ ...one, output: null, drop_checkpoints: false, history: null }),
      ),
    );
    assertByPrimaryKey(
      await plan(
        tm,
        workflowSql.saveCheckpoint.text(tm.schema),
        workflowSql.saveCheckpoint.values({ ...one, name: 'step', kind: 'step', output: 'null', seq: 1 }),
      ),
    );
  });

  test('a claim reads ready jobs in order from the claim index and updates them by primary key', async () => {
    const tm = await engine();
    // A small table: a guess of many claimed rows made a seq scan of jobs look cheap.
    await rawQuery(tm, `insert into "${tm.schema}".jobs (queue) select 'q' from generate_series(1, 5000)`);
    await rawQuery(tm, `analyze "${tm.schema}".jobs`);
    const params = { queues: ['q', 'r'], limit: 200, worker: 'w', lock_seconds: 30 };
    const text = await plan(tm, sql.claimJobs.text(tm.schema), sql.claimJobs.values(params));
    assert.match(text, /Index Scan using jobs_claim_idx on jobs/, text);
    assert.match(text, /jobs_pkey on jobs j/, text);
    assert.doesNotMatch(text, /Seq Scan on jobs/, text);
  });

  test("the maintenance tick's reads of due work use jobs_due_idx, not a scan of the kept history", async () => {
    const tm = await engine();
    const s = `"${tm.schema}".jobs`;
    // Finished history kept for retention, a backlog of jobs added due (through each way of
    // adding: one job, a batch, a call long enough to be written in chunks) and a few delayed.
    await rawQuery(
      tm,
      `insert into ${s} (queue, status, finished_at, purge_after)
       select 'q', 'completed', now(), now() + interval '1 day' from generate_series(1, 20000)`,
    );
    tm.createQueue({ name: 'q' });
    await tm.addJob({ queue: 'q' });
    await tm.addJobs(Array.from({ length: 10 }, () => ({ queue: 'q' })));
    await tm.addJobs(Array.from({ length: 2000 }, () => ({ queue: 'q' })));
    for (let i = 0; i < 20; i++) await tm.addJob({ queue: 'q', delaySeconds: 60 });
    await rawQuery(tm, `analyze ${s}`);
    const nudge = await plan(
      tm,
      maintenanceSql.nudgeDueQueues.text(tm.schema),
      maintenanceSql.nudgeDueQueues.values({ since_seconds: 10, channel: 'c' }),
    );
    const promote = await plan(
      tm,
      maintenanceSql.promoteRetries.text(tm.schema),
      maintenanceSql.promoteRetries.values({ limit: 1000 }),
    );
    for (const text of [nudge, promote]) {
      assert.match(text, /jobs_due_idx/, text);
      assert.doesNotMatch(text, /Seq Scan on jobs|jobs_queue_status_idx/, text);
    }
    const [{ n }] = await rawQuery<{ n: string }>(
      tm,
      `select count(*) as n from ${s} where status in ('retry', 'waiting') or (status = 'pending' and run_at > created_at)`,
    );
    assert.equal(Number(n), 20, 'only the delayed jobs are in the index');
  });
});
