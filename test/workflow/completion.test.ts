import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';
import { count, startWorker, table, waitForStatus } from './fixtures/helpers.js';

async function createAppTable(tm: Tidemark): Promise<string> {
  const name = table(tm, 'app_orders');
  await rawQuery(tm, `create table ${name} (job_id bigint, total int, status_seen text)`);
  return name;
}

async function checkpointNames(tm: Tidemark, id: string): Promise<string[]> {
  return ((await tm.getJobDetail(id))?.checkpoints ?? []).map((c) => c.name).sort();
}

describeEachDriver('ctx.completionTx', ({ open }) => {
  test('runs in the transaction that completes the job and commits with it', async () => {
    const tm = await open({ logger: silentLogger });
    const orders = await createAppTable(tm);
    tm.createQueue({
      name: 'wf',
      handler: async (job, ctx) => {
        const total = await ctx.step('total', () => 42);
        ctx.completionTx(async (tx) => {
          // The completing write is already visible inside this transaction.
          const { rows } = await tx.query<{ status: string }>(
            `select status from ${table(tm, 'jobs')} where id = $1`,
            [job.id],
          );
          await tx.query(`insert into ${orders} values ($1, $2, $3)`, [job.id, total, rows[0].status]);
        });
        return { total };
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    assert.deepEqual((await waitForStatus(tm, id, 'completed')).output, { total: 42 });
    const rows = await rawQuery(tm, `select job_id::text as job_id, total, status_seen from ${orders}`);
    assert.deepEqual(rows, [{ job_id: id, total: 42, status_seen: 'completed' }]);
  });

  test('when fn throws, the completion rolls back and the attempt fails and retries', async () => {
    const tm = await open({ logger: silentLogger });
    const orders = await createAppTable(tm);
    const failures: boolean[] = [];
    tm.on('job:failed', (e) => failures.push(e.willRetry));
    tm.createQueue({
      name: 'wf',
      maxAttempts: 2,
      backoff: { delaySeconds: 0, jitter: false },
      handler: async (job, ctx) => {
        ctx.completionTx(async (tx) => {
          await tx.query(`insert into ${orders} values ($1, $2, 'x')`, [job.id, job.attempts]);
          if (job.attempts === 1) throw new Error('application table refused the copy');
        });
        return 'out';
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.attempts, 2);
    assert.deepEqual(failures, [true]);
    // The first attempt's insert rolled back with its completion.
    assert.deepEqual(await rawQuery(tm, `select total from ${orders}`), [{ total: 2 }]);
  });

  test('a completion that lost ownership runs nothing', async () => {
    const tm = await open({ logger: silentLogger });
    const orders = await createAppTable(tm);
    const lost: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    let hookRan = false;
    tm.createQueue({
      name: 'wf',
      handler: async (job, ctx) => {
        ctx.completionTx(async (tx) => {
          hookRan = true;
          await tx.query(`insert into ${orders} values ($1, 1, 'x')`, [job.id]);
        });
        // Another worker reclaimed the job meanwhile (its token is no longer ours).
        await rawQuery(tm, `update ${table(tm, 'jobs')} set lock_token = gen_random_uuid() where id = $1`, [
          job.id,
        ]);
        return 'late';
      },
    });
    await startWorker(tm, { tickIntervalSeconds: 3600 });
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitFor('the lost completion to be reported', () => lost.includes(id));
    assert.equal(hookRan, false);
    assert.equal(await count(tm, 'app_orders'), 0);
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'active');
    assert.equal(job?.output, null);
  });
});

describeEachDriver('deleteCheckpointsOnComplete', ({ open }) => {
  for (const path of ['batched completion', 'completionTx'] as const) {
    test(`deletes checkpoints with a successful completion, never on retry or failure (${path})`, async () => {
      const tm = await open({ logger: silentLogger });
      tm.createQueue({
        name: 'wf',
        maxAttempts: 2,
        deleteCheckpointsOnComplete: true,
        // A long backoff: the test inspects the job between its attempts, then retries it.
        backoff: { delaySeconds: 3600, jitter: false },
        handler: async (job, ctx) => {
          await ctx.step('a', () => 1);
          if (path === 'completionTx') ctx.completionTx(() => {});
          if ((job.data as { fail: boolean }).fail || job.attempts === 1) throw new Error('not yet');
          await ctx.step('b', () => 2);
          return 'ok';
        },
      });
      await startWorker(tm);
      const ok = await tm.addJob({ queue: 'wf', data: { fail: false } });
      const bad = await tm.addJob({ queue: 'wf', data: { fail: true }, maxAttempts: 1 });
      await waitForStatus(tm, ok.id, 'retry');
      assert.deepEqual(await checkpointNames(tm, ok.id), ['a'], 'kept for the retry to replay');
      await waitForStatus(tm, bad.id, 'failed');
      assert.deepEqual(await checkpointNames(tm, bad.id), ['a'], 'kept on failure for debugging');
      await tm.retryJob(ok.id);
      await waitForStatus(tm, ok.id, 'completed');
      assert.deepEqual(await checkpointNames(tm, ok.id), []);
      assert.deepEqual(await checkpointNames(tm, bad.id), ['a']);
    });
  }

  test('without the option a completed job keeps its checkpoints', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => ctx.step('a', () => 1),
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'completed');
    assert.deepEqual(await checkpointNames(tm, id), ['a']);
  });
});

describeEachDriver('tables that reference jobs', ({ open }) => {
  test('deleting a job deletes its checkpoints, signals, schedule fires and unique locks with it', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { go: 2 },
      handler: async (_job, ctx) => {
        await ctx.step('a', () => 1);
        return ctx.waitForSignal('go');
      },
    });
    const { id } = await tm.addJob({ queue: 'wf', idempotencyKey: { key: 'k', ttlSeconds: 3600 } });
    await rawQuery(
      tm,
      `insert into ${table(tm, 'schedule_fires')} (schedule_name, fire_at, job_id) values ('s', now(), $1)`,
      [id],
    );
    await tm.signal(id, 'go', 1);
    await tm.signal(id, 'go', 2);
    await startWorker(tm);
    await waitForStatus(tm, id, 'completed');
    for (const t of ['checkpoints', 'signals', 'schedule_fires', 'unique_locks']) {
      assert.ok((await count(tm, t, 'job_id = $1', [id])) > 0, `${t} has rows for the job`);
    }
    await tm.deleteJob(id);
    for (const t of ['checkpoints', 'signals', 'schedule_fires', 'unique_locks']) {
      assert.equal(await count(tm, t, 'job_id = $1', [id]), 0, `${t} rows went with the job`);
    }
  });
});
