import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Handler, silentLogger } from '../../src/index.js';
import { isFinished } from '../../src/job-status.js';
import { describeEachDriver } from '../support/each-driver.js';
import { sleepWakeAt, startWorker, waitForStatus } from './fixtures/helpers.js';

describeEachDriver('ctx.sleep', ({ open, openOnClock }) => {
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

  // On the test clock from here: the timer is due when the test moves the clock to it, so
  // "not before" is checked a millisecond early, and nothing waits for real.
  test('resumes after the delay and continues after the sleep, not before it', async () => {
    const tm = await openOnClock();
    let before = 0;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.step('before', () => before++);
        await ctx.sleep('nap', 0.5);
        return ctx.step('after', () => 'after');
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const wakeAt = await sleepWakeAt(tm, id, 'nap');
    assert.equal(wakeAt.getTime(), tm.clock.now().getTime() + 500);
    await tm.clock.advance(0.499);
    assert.equal((await tm.runUntilIdle()).attempts, 0, 'not woken before its time');
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    await tm.clock.advance(0.001);
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.equal(done?.output, 'after');
    assert.equal(done?.attempts, 1, 'a resumed workflow continues its attempt');
    assert.equal(before, 1);
    assert.deepEqual(done?.finishedAt, wakeAt);
  });

  test('resumes on a new worker of a new engine after every worker stopped', async () => {
    let before = 0;
    const handler: Handler = async (_job, ctx) => {
      await ctx.step('before', () => before++);
      await ctx.sleep('nap', 1);
      return 'resumed';
    };
    const now = new Date('2030-01-01T00:00:00Z');
    const first = await openOnClock({ now });
    first.createQueue({ name: 'wf', handler });
    const { id } = await first.addJob({ queue: 'wf' });
    await first.runUntilIdle();
    assert.equal((await first.getJob(id))?.status, 'waiting');
    await first.close();

    const second = await openOnClock({ schema: first.schema, now: new Date(now.getTime() + 1_000) });
    second.createQueue({ name: 'wf', handler });
    assert.equal((await second.getJob(id))?.status, 'waiting');
    await second.runUntilIdle();
    const done = await second.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.equal(done?.output, 'resumed');
    assert.equal(before, 1);
  });
});

describeEachDriver('pauseJob / resumeJob on a waiting workflow', ({ open, openOnClock }) => {
  test('a paused workflow is not finished, does not wake while paused, and continues once resumed', async () => {
    const tm = await openOnClock();
    let after = 0;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.sleep('nap', 0.3);
        await ctx.step('after', () => after++);
        return 'resumed';
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    const paused = await tm.pauseJob(id);
    assert.equal(paused.status, 'paused');
    assert.equal(isFinished(paused.status), false);
    assert.equal(paused.finishedAt, null);
    assert.equal(paused.purgeAfter, null);
    // The timer passes while paused: nothing runs.
    await tm.clock.advance(60);
    assert.equal((await tm.runUntilIdle()).attempts, 0);
    assert.equal((await tm.getJob(id))?.status, 'paused');
    assert.equal(after, 0);
    await tm.resumeJob(id);
    await tm.runUntilIdle();
    assert.equal(await tm.result(id), 'resumed');
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
