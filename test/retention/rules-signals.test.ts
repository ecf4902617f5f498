import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob, jobExists, passTime } from '../support/factory.js';
import { countRows, deferred, fastWorker, waitForStatus } from '../support/jobs.js';

const HOUR = 3_600;

describeEachDriver('safety rules R6-R7: signals and checkpoints', ({ open }) => {
  test('R6: pending signals are never deleted on their own, even with a stale purge time', async () => {
    const tm = await open();
    const running = await insertJob(tm, {
      status: 'waiting',
      signals: [{ purgeAfter: -HOUR }, { consumedAt: null }],
    });
    const finished = await insertJob(tm, {
      status: 'completed',
      purgeAfter: HOUR,
      signals: [{ purgeAfter: -HOUR }],
    });
    const swept = await tm.sweep();
    assert.equal(swept.signals, 0);
    assert.equal((await tm.sweep({ dryRun: true })).signals, 0);
    assert.equal(await countRows(tm, 'signals'), 3);
    assert.equal(await jobExists(tm, running), true);
    assert.equal(await jobExists(tm, finished), true);
  });

  test('R6: consumed signals go after their own window, while their job stays', async () => {
    const tm = await open();
    const retention = { completed: 100 * HOUR, consumedSignals: 2 * HOUR };
    const waiting = await insertJob(tm, {
      status: 'waiting',
      retention,
      signals: [{ consumedAt: -HOUR }, { consumedAt: -3 * HOUR }, {}],
    });
    const done = await insertJob(tm, {
      status: 'completed',
      retention,
      signals: [{ consumedAt: -3 * HOUR }],
    });
    const preview = await tm.sweep({ dryRun: true });
    assert.equal(preview.signals, 2);
    assert.equal((await tm.sweep()).signals, 2);
    assert.equal(await countRows(tm, 'signals'), 2, 'the younger consumed signal and the pending one stay');
    await passTime(tm, 2 * HOUR);
    assert.equal((await tm.sweep()).signals, 1);
    const left = await rawQuery<{ consumed_at: Date | null }>(
      tm,
      `select consumed_at from "${tm.schema}".signals where job_id = $1::bigint`,
      [waiting],
    );
    assert.deepEqual(left, [{ consumed_at: null }]);
    assert.equal(await jobExists(tm, waiting), true);
    assert.equal(await jobExists(tm, done), true);
  });

  test('R6: without a consumedSignals window a consumed signal lives as long as its job', async () => {
    const tm = await open();
    const id = await insertJob(tm, {
      status: 'completed',
      retention: { completed: 10 * HOUR },
      signals: [{ consumedAt: -HOUR }],
    });
    await passTime(tm, 9 * HOUR);
    assert.equal((await tm.sweep()).signals, 0);
    assert.equal(await countRows(tm, 'signals'), 1);
    await passTime(tm, 2 * HOUR);
    const swept = await tm.sweep();
    assert.deepEqual([swept.jobs, swept.signals], [1, 0]);
    assert.equal(await jobExists(tm, id), false);
    assert.equal(await countRows(tm, 'signals'), 0);
  });

  test("R6: a consumed signal's window is the one frozen with its job, not the queue's current one", async () => {
    const tm = await open({ logger: silentLogger });
    const handler = async (_job: unknown, ctx: { waitForSignal(name: string): Promise<unknown> }) => {
      await ctx.waitForSignal('go');
      return 'done';
    };
    const options = { name: 'wf', signals: { go: 1 }, handler };
    tm.createQueue({ ...options, retention: { completed: 600, consumedSignals: 50 } });
    const { id } = await tm.addJob({ queue: 'wf' });
    const worker = fastWorker(tm);
    await worker.start();
    await waitForStatus(tm, id, 'waiting');
    tm.createQueue({ ...options, retention: { completed: 600, consumedSignals: 999 } });
    assert.deepEqual(await tm.signal(id, 'go', 1), { delivered: true });
    await tm.result(id, { timeoutSeconds: 15 });
    await worker.stop();
    const [signal] = (await tm.getJobDetail(id))?.signals ?? [];
    assert.equal(signal?.state, 'consumed');
    assert.ok(signal.consumedAt && signal.purgeAfter);
    assert.equal(signal.purgeAfter.getTime() - signal.consumedAt.getTime(), 50_000);
  });

  test('R7: deleteCheckpointsOnComplete deletes checkpoints with the completion, never on failure or retry', async () => {
    const tm = await open({ logger: silentLogger });
    let failFirst = true;
    const stepRuns = new Map<string, number>();
    tm.createQueue({
      name: 'tidy',
      deleteCheckpointsOnComplete: true,
      maxAttempts: 2,
      backoff: { delaySeconds: 0.01, jitter: false },
      handler: async (job, ctx) => {
        await ctx.step('one', () => {
          stepRuns.set(job.id, (stepRuns.get(job.id) ?? 0) + 1);
          return 1;
        });
        if ((job.data as { fail?: string }).fail === 'always') throw new Error('always');
        if ((job.data as { fail?: string }).fail === 'once' && failFirst) {
          failFirst = false;
          throw new Error('once');
        }
        return 'ok';
      },
    });
    tm.createQueue({ name: 'keep', handler: async (_job, ctx) => ctx.step('one', () => 1) });
    const tidy = await tm.addJob({ queue: 'tidy', data: {} });
    const retried = await tm.addJob({ queue: 'tidy', data: { fail: 'once' } });
    const failed = await tm.addJob({ queue: 'tidy', data: { fail: 'always' } });
    const keep = await tm.addJob({ queue: 'keep' });
    const worker = fastWorker(tm);
    await worker.start();
    for (const id of [tidy.id, retried.id, keep.id]) await tm.result(id, { timeoutSeconds: 15 });
    await waitForStatus(tm, failed.id, 'failed');
    await worker.stop();
    assert.equal((await tm.getJob(retried.id))?.attempts, 2);
    assert.equal(stepRuns.get(retried.id), 1, 'the retry replayed the step from its kept checkpoint');
    assert.equal(await countRows(tm, 'checkpoints', `job_id = ${tidy.id}`), 0);
    assert.equal(await countRows(tm, 'checkpoints', `job_id = ${retried.id}`), 0);
    assert.equal(await countRows(tm, 'checkpoints', `job_id = ${failed.id}`), 1, 'a failed job keeps them');
    assert.equal(await countRows(tm, 'checkpoints', `job_id = ${keep.id}`), 1, 'off by default');
  });

  test('R7: a completion that lost ownership writes and deletes nothing', async () => {
    const tm = await open({ logger: silentLogger });
    const release = deferred();
    const started = deferred();
    tm.createQueue({
      name: 'tidy',
      deleteCheckpointsOnComplete: true,
      handler: async (_job, ctx) => {
        await ctx.step('one', () => 1);
        started.resolve();
        await release.promise;
        return 'late';
      },
    });
    const { id } = await tm.addJob({ queue: 'tidy' });
    const lost = deferred();
    tm.on('job:lost', (e) => e.id === id && lost.resolve());
    const worker = fastWorker(tm);
    await worker.start();
    await started.promise;
    // Another node reclaimed the job meanwhile: the lock token changes under the handler.
    await rawQuery(
      tm,
      `update "${tm.schema}".jobs set lock_token = gen_random_uuid() where id = $1::bigint`,
      [id],
    );
    release.resolve();
    await lost.promise;
    await worker.stop();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'active');
    assert.equal(job?.output, null);
    assert.equal(await countRows(tm, 'checkpoints', `job_id = ${id}`), 1);
  });
});
