import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Handler, silentLogger } from '../../src/index.js';
import { isFinished } from '../../src/job-status.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { sleepWakeAt, startWorker, waitForStatus } from './fixtures/helpers.js';

describeEachDriver('ctx.sleep', ({ open }) => {
  test('a sleeping workflow frees its worker slot and waits in `waiting`', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.sleep('nap', 3600);
        return 'woke';
      },
    });
    tm.createQueue({ name: 'plain', handler: () => 'ran' });
    await startWorker(tm, { concurrency: 1 });
    const wf = await tm.addJob({ queue: 'wf' });
    const asleep = await waitForStatus(tm, wf.id, 'waiting');
    assert.equal(asleep.lockedBy, null);
    assert.ok(asleep.runAt.getTime() > Date.now() + 3000_000, 'runs again when the timer is due');
    // The only slot is free: another job runs while the workflow sleeps.
    const plain = await tm.addJob({ queue: 'plain' });
    assert.equal((await waitForStatus(tm, plain.id, 'completed')).output, 'ran');
    assert.equal((await tm.getJob(wf.id))?.status, 'waiting');
    const [nap] = (await tm.getJobDetail(wf.id))?.checkpoints ?? [];
    assert.equal(nap.name, 'nap');
    assert.equal(nap.kind, 'sleep');
  });

  test('resumes after the delay and continues after the sleep, not before it', async () => {
    const tm = await open({ logger: silentLogger });
    let before = 0;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.step('before', () => before++);
        await ctx.sleep('nap', 0.5);
        return ctx.step('after', () => 'after');
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 'after');
    assert.equal(done.attempts, 1, 'a resumed workflow continues its attempt');
    assert.equal(before, 1);
    const wakeAt = await sleepWakeAt(tm, id, 'nap');
    assert.ok(done.finishedAt && done.finishedAt.getTime() >= wakeAt.getTime());
  });

  test('resumes on a new worker of a new engine after every worker stopped', async () => {
    let before = 0;
    const handler: Handler = async (_job, ctx) => {
      await ctx.step('before', () => before++);
      await ctx.sleep('nap', 1);
      return 'resumed';
    };
    const first = await open({ logger: silentLogger });
    first.createQueue({ name: 'wf', handler });
    const worker = await startWorker(first);
    const { id } = await first.addJob({ queue: 'wf' });
    await waitForStatus(first, id, 'waiting');
    await worker.stop();
    await first.close();

    const second = await open({ logger: silentLogger, schema: first.schema });
    second.createQueue({ name: 'wf', handler });
    assert.equal((await second.getJob(id))?.status, 'waiting');
    await startWorker(second);
    const done = await waitForStatus(second, id, 'completed');
    assert.equal(done.output, 'resumed');
    assert.equal(before, 1);
  });
});

describeEachDriver('pauseJob / resumeJob on a waiting workflow', ({ open }) => {
  test('a paused workflow is not finished, does not wake while paused, and continues once resumed', async () => {
    const tm = await open({ logger: silentLogger });
    let after = 0;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.sleep('nap', 0.3);
        await ctx.step('after', () => after++);
        return 'resumed';
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    const paused = await tm.pauseJob(id);
    assert.equal(paused.status, 'paused');
    assert.equal(isFinished(paused.status), false);
    assert.equal(paused.finishedAt, null);
    assert.equal(paused.purgeAfter, null);
    // The timer passes while paused: nothing runs.
    const wakeAt = await sleepWakeAt(tm, id, 'nap');
    await waitFor('the database clock to pass the wake time', async () => {
      const [row] = await rawQuery<{ passed: boolean }>(tm, 'select now() > $1::timestamptz as passed', [
        wakeAt,
      ]);
      return row.passed;
    });
    await sleep(300);
    assert.equal((await tm.getJob(id))?.status, 'paused');
    assert.equal(after, 0);
    await tm.resumeJob(id);
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'resumed');
    assert.equal(after, 1);
  });

  test('a workflow paused and resumed before its timer still waits for the timer', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.sleep('nap', 3600);
        return 'late';
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const waiting = await waitForStatus(tm, id, 'waiting');
    await tm.pauseJob(id);
    const resumed = await tm.resumeJob(id);
    assert.equal(resumed.status, 'waiting');
    assert.equal(resumed.runAt.getTime(), waiting.runAt.getTime());
  });
});
