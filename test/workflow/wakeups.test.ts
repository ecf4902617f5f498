import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { startWorker, table, waitForStatus } from './fixtures/helpers.js';

/** Claim one job of `queue` by hand, as a worker would; returns its lock token. */
async function claimOne(tm: Tidemark, queue: string): Promise<string> {
  const [claimed] = await engineOf(tm).storage.attempts.claimJobs([queue], 1, 'test-worker', 30);
  assert.ok(claimed, `a ${queue} job to claim`);
  return claimed.token;
}

async function isDue(tm: Tidemark, id: string): Promise<boolean> {
  const [row] = await rawQuery<{ due: boolean }>(
    tm,
    `select run_at <= now() as due from ${table(tm, 'jobs')} where id = $1`,
    [id],
  );
  return row.due;
}

/**
 * A wake-up (signal, finished child) can arrive while the workflow is still running, after
 * it looked and before it parks itself in `waiting`. None of them may be lost.
 */
describeEachDriver('workflow wake-ups', ({ open }) => {
  test('a signal delivered between the check and the suspension makes the suspended job due', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'wf', signals: { go: 1 } });
    const { id } = await tm.addJob({ queue: 'wf' });
    const token = await claimOne(tm, 'wf');
    assert.deepEqual(await tm.signal(id, 'go', 1), { delivered: true });
    assert.ok(
      await engineOf(tm).storage.attempts.suspendJob(id, token, { kind: 'signal', names: ['go'] }, null),
    );
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    assert.equal(await isDue(tm, id), true);
  });

  test('a child that finishes between the check and the suspension makes the parent due', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'parent' });
    tm.createQueue({ name: 'child' });
    const { id } = await tm.addJob({ queue: 'parent' });
    const token = await claimOne(tm, 'parent');
    const childId = await engineOf(tm).storage.workflow.insertChild(
      {
        queue: 'child',
        dataText: 'null',
        priority: 0,
        max_attempts: 1,
        retention: {},
        parent_id: id,
        root_id: id,
        parent_step: 'child#1',
      },
      token,
      engineOf(tm).insertDefaults,
    );
    assert.ok(childId);
    // The child runs and completes on another worker while the parent is still active.
    const childToken = await claimOne(tm, 'child');
    await engineOf(tm).storage.attempts.finishAttempts([
      { id: childId, token: childToken, ok: true, output: '"out"' },
    ]);
    assert.equal((await tm.getJob(childId))?.status, 'completed');
    assert.ok(await engineOf(tm).storage.attempts.suspendJob(id, token, { kind: 'child', childId }, null));
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    assert.equal(await isDue(tm, id), true, 'the parent must not sleep through its finished child');
  });

  test('a signal sent to a workflow paused while waiting wakes it when resumed', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { go: 1 },
      handler: async (_job, ctx) => (await ctx.waitForSignal('go')).payload,
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    await tm.pauseJob(id);
    assert.deepEqual(await tm.signal(id, 'go', 'while paused'), { delivered: true });
    assert.equal((await tm.getJob(id))?.status, 'paused', 'a signal does not unpause');
    await tm.resumeJob(id);
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'while paused');
  });

  test('a child that finishes while its parent is paused wakes the parent when resumed', async () => {
    const tm = await open({ logger: silentLogger });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    tm.createQueue({
      name: 'child',
      handler: async () => {
        await gate;
        return 'child output';
      },
    });
    tm.createQueue({ name: 'parent', handler: (_job, ctx) => ctx.runChild('child') });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'parent' });
    await waitForStatus(tm, id, 'waiting');
    await tm.pauseJob(id);
    release();
    const [child] = (await tm.getJobDetail(id))?.children ?? [];
    await waitForStatus(tm, child.id, 'completed');
    assert.equal((await tm.getJob(id))?.status, 'paused');
    await tm.resumeJob(id);
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'child output');
  });
});
