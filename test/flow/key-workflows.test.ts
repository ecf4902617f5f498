import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

describeEachDriver('flow control: workflows of a key', ({ openOnClock }) => {
  test("a sleeping workflow frees its key's slot and waits for one to resume", async () => {
    // On the test clock: the workflow's timer is due only when the test moves the clock.
    const tm = await openOnClock({ logger: silentLogger });
    const events: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 1 },
      handler: async (job, ctx) => {
        const { name } = job.data as { name: string };
        if (name === 'workflow') {
          await ctx.step('before', () => events.push('workflow before'));
          await ctx.sleep('nap', 60);
          await ctx.step('after', () => events.push('workflow after'));
          return;
        }
        events.push(`start ${name}`);
        if (name === 'holder') await held;
        events.push(`end ${name}`);
      },
    });
    // Priorities order the claims: the workflow, then the short job, then the holder.
    const workflow = await tm.addJob({ queue: 'q', key: 'k', priority: 3, data: { name: 'workflow' } });
    await tm.addJob({ queue: 'q', key: 'k', priority: 2, data: { name: 'short' } });
    await tm.addJob({ queue: 'q', key: 'k', priority: 1, data: { name: 'holder' } });
    // Locks longer than the clock moves, so the holder is not taken for stalled.
    await fastWorker(tm, { concurrency: 3, lockSeconds: 600 }).start();
    await waitFor('the holder to start', () => events.includes('start holder'));
    assert.equal((await tm.getJob(workflow.id))?.status, 'waiting');
    // The workflow's timer is due now, but its key's one slot is the holder's: several
    // polls of the worker pass without resuming it.
    await tm.clock.advance(61);
    await sleep(300);
    assert.equal((await tm.getJob(workflow.id))?.status, 'waiting');
    assert.deepEqual(events, ['workflow before', 'start short', 'end short', 'start holder']);
    release();
    await waitFor(
      'the workflow to finish',
      async () => (await tm.getJob(workflow.id))?.status === 'completed',
    );
    assert.deepEqual(events, [
      'workflow before',
      'start short',
      'end short',
      'start holder',
      'end holder',
      'workflow after',
    ]);
  });
});

describeEachDriver('flow control: the test kit', ({ openOnClock }) => {
  test('runUntilIdle is idle when the only jobs left are of a paused key or a key at its limit', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    const ran: string[] = [];
    tm.createQueue({ name: 'q', keys: { concurrency: 1 }, handler: (job) => void ran.push(job.key ?? '') });
    await tm.pauseKey('q', 'held');
    await tm.addJobs([{ queue: 'q', key: 'held' }, { queue: 'q', key: 'free' }, { queue: 'q' }]);
    const run = await tm.runUntilIdle();
    assert.deepEqual({ idle: run.idle, attempts: run.attempts }, { idle: true, attempts: 2 });
    assert.deepEqual(ran.sort(), ['', 'free']);
    await tm.resumeKey('q', 'held');
    assert.equal((await tm.runUntilIdle()).attempts, 1);
  });
});
