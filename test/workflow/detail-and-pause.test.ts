import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { isFinished } from '../../src/job-status.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { sleepWakeAt, startWorker, waitForStatus } from './fixtures/helpers.js';

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

describeEachDriver('getJobDetail', ({ open }) => {
  test('returns the job with its checkpoints, signals (pending or consumed) and children', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'child', handler: (job) => ({ echoed: job.data }) });
    tm.createQueue({
      name: 'wf',
      signals: { go: 1, later: 1 },
      handler: async (_job, ctx) => {
        const price = await ctx.step('price', () => 10);
        const go = await ctx.waitForSignal('go');
        const child = await ctx.runChild('child', { price });
        await ctx.sleep('rest', 3600);
        return { go, child };
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.signal(id, 'go', { approved: true });
    await tm.signal(id, 'later', 'unused');
    await startWorker(tm);
    const detail = await waitFor('the workflow to rest', async () => {
      const d = await tm.getJobDetail(id);
      return d?.job.status === 'waiting' && d.checkpoints.some((c) => c.name === 'rest') ? d : null;
    });
    assert.equal(detail.job.id, id);
    assert.deepEqual(detail.checkpoints.map((c) => [c.name, c.kind]).sort(), [
      ['price', 'step'],
      ['rest', 'sleep'],
      ['wait:go#1', 'wait'],
    ]);
    assert.equal(detail.checkpoints.find((c) => c.name === 'price')?.output, 10);
    assert.ok(detail.checkpoints.every((c) => c.createdAt instanceof Date));
    assert.deepEqual(
      detail.signals.map((s) => [s.name, s.payload, s.state, s.consumedAt instanceof Date, s.consumedBy]),
      [
        ['go', { approved: true }, 'consumed', true, 'wait:go#1'],
        ['later', 'unused', 'pending', false, null],
      ],
    );
    assert.equal(detail.children.length, 1);
    const [child] = detail.children;
    assert.equal(child.parentId, id);
    assert.equal(child.queue, 'child');
    assert.equal(child.status, 'completed');
    assert.deepEqual(child.output, { echoed: { price: 10 } });
    assert.equal(await tm.getJobDetail('987654321'), null);
  });
});
