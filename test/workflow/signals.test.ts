import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';
import { count, startWorker, table, waitForStatus } from './fixtures/helpers.js';

async function signalRows(tm: Tidemark, id: string) {
  return rawQuery<{
    name: string;
    payload: unknown;
    consumed_at: Date | null;
    consumed_by: string | null;
    purge_after: Date | null;
  }>(
    tm,
    `select name, payload, consumed_at, consumed_by, purge_after from ${table(tm, 'signals')} where job_id = $1 order by id`,
    [id],
  );
}

describeEachDriver('signals', ({ open, openOnClock }) => {
  test('each queue declares its signals and mailbox sizes; refusals store nothing', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'wf', signals: { approval: 1, votes: 3 } });
    const { id } = await tm.addJob({ queue: 'wf' });
    assert.deepEqual(await tm.signal(id, 'approval', { ok: true }), { delivered: true });
    assert.deepEqual(await tm.signal(id, 'approval', { ok: false }), {
      delivered: false,
      reason: 'mailbox-full',
    });
    for (const vote of [1, 2, 3]) assert.deepEqual(await tm.signal(id, 'votes', vote), { delivered: true });
    assert.deepEqual(await tm.signal(id, 'votes', 4), { delivered: false, reason: 'mailbox-full' });
    assert.deepEqual(await tm.signal(id, 'nope', 1), { delivered: false, reason: 'unknown-signal' });
    assert.deepEqual(await tm.signal('987654321', 'approval', 1), {
      delivered: false,
      reason: 'job-not-found',
    });
    assert.equal(await count(tm, 'signals'), 4);
    const pending = (await tm.getJobDetail(id))?.signals ?? [];
    assert.deepEqual(
      pending.map((s) => [s.name, s.payload, s.state, s.consumedAt]),
      [
        ['approval', { ok: true }, 'pending', null],
        ['votes', 1, 'pending', null],
        ['votes', 2, 'pending', null],
        ['votes', 3, 'pending', null],
      ],
    );
    await tm.cancelJob(id);
    assert.deepEqual(await tm.signal(id, 'votes', 5), { delivered: false, reason: 'job-finished' });
    assert.equal(await count(tm, 'signals'), 4);
  });

  test('getJobDetail lists signals in the order they arrived, past the tenth', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'wf', signals: { votes: 12 } });
    const { id } = await tm.addJob({ queue: 'wf' });
    for (let vote = 1; vote <= 12; vote++) await tm.signal(id, 'votes', vote);
    const listed = (await tm.getJobDetail(id))?.signals ?? [];
    assert.deepEqual(
      listed.map((s) => s.payload),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
      'ordered by id as a number: id 10 comes after id 9',
    );
  });

  test('a signal for a wait that already completed is refused and not stored', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { approval: 1 },
      handler: async (_job, ctx) => {
        await ctx.waitForSignal('approval');
        await ctx.sleep('after', 3600);
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    assert.deepEqual(await tm.signal(id, 'approval', 1), { delivered: true });
    await waitFor('the approval to be consumed and the job to sleep', async () => {
      const detail = await tm.getJobDetail(id);
      return detail?.job.status === 'waiting' && detail.checkpoints.some((c) => c.name === 'after');
    });
    assert.deepEqual(await tm.signal(id, 'approval', 2), { delivered: false, reason: 'wait-completed' });
    assert.equal(await count(tm, 'signals'), 1);
  });

  test('a signal sent before the workflow reaches its wait is consumed when it gets there', async () => {
    const tm = await open({ logger: silentLogger });
    let before = 0;
    tm.createQueue({
      name: 'wf',
      signals: { go: 1 },
      retention: { completed: 3600, consumedSignals: 120 },
      handler: async (_job, ctx) => {
        await ctx.step('before', () => before++);
        return ctx.waitForSignal('go');
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    assert.deepEqual(await tm.signal(id, 'go', { n: 7 }), { delivered: true });
    await startWorker(tm);
    const done = await waitForStatus(tm, id, 'completed');
    assert.deepEqual(done.output, { timedOut: false, name: 'go', payload: { n: 7 } });
    assert.equal(before, 1);
    const [row] = await signalRows(tm, id);
    assert.ok(row.consumed_at instanceof Date);
    assert.equal(row.consumed_by, 'wait:go#1');
    // Deleted by retention `consumedSignals` seconds after it was consumed (frozen on the job).
    assert.equal(row.purge_after?.getTime(), row.consumed_at.getTime() + 120_000);
    const [signal] = (await tm.getJobDetail(id))?.signals ?? [];
    assert.equal(signal.state, 'consumed');
  });

  test('without a consumedSignals window a consumed signal lives as long as its job', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { go: 1 },
      retention: { completed: 3600 },
      handler: async (_job, ctx) => (await ctx.waitForSignal('go')).payload,
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.signal(id, 'go', 1);
    await startWorker(tm);
    await waitForStatus(tm, id, 'completed');
    const [row] = await signalRows(tm, id);
    assert.ok(row.consumed_at instanceof Date);
    assert.equal(row.purge_after, null);
  });

  test('waitForAny resumes with the first signal of any of the names', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { approve: 1, reject: 1 },
      handler: (_job, ctx) => ctx.waitForAny(['approve', 'reject']),
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    assert.deepEqual(await tm.signal(id, 'reject', 'too expensive'), { delivered: true });
    const done = await waitForStatus(tm, id, 'completed');
    assert.deepEqual(done.output, { timedOut: false, name: 'reject', payload: 'too expensive' });
  });

  test('waitForAny holds one signal across its names while the job waits', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { approve: 1, reject: 1 },
      handler: async (_job, ctx) => (await ctx.waitForAny(['approve', 'reject'])).name,
    });
    const worker = await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    await worker.stop();
    assert.deepEqual(await tm.signal(id, 'approve', 1), { delivered: true });
    assert.deepEqual(await tm.signal(id, 'reject', 2), { delivered: false, reason: 'mailbox-full' });
    assert.equal(await count(tm, 'signals'), 1);
    await startWorker(tm);
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'approve');
  });

  test('waitForSignals(name, n) resumes once n signals arrived, in order', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { votes: 3 },
      handler: (_job, ctx) => ctx.waitForSignals('votes', 3),
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    await tm.signal(id, 'votes', 'a');
    await tm.signal(id, 'votes', 'b');
    // Two of three: each delivery wakes the job, which finds too few and waits again.
    await waitFor('the job to wait again after two votes', async () => {
      const job = await tm.getJob(id);
      return job?.status === 'waiting' && job.runAt.getTime() > Date.now() + 1e9;
    });
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    assert.equal(await count(tm, 'signals', 'consumed_at is null'), 2);
    await tm.signal(id, 'votes', 'c');
    const done = await waitForStatus(tm, id, 'completed');
    assert.deepEqual(done.output, { timedOut: false, payloads: ['a', 'b', 'c'] });
    assert.equal(await count(tm, 'signals', 'consumed_at is not null'), 3);
  });

  // On the test clock: each timeout is checked a millisecond before it ends, with no real wait.
  test('a wait that times out resumes with a timed-out result', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'wf',
      signals: { go: 1, votes: 2 },
      handler: async (_job, ctx) => ({
        one: await ctx.waitForSignal('go', { timeoutSeconds: 0.2 }),
        many: await ctx.waitForSignals('votes', 2, { timeoutSeconds: 0.2 }),
      }),
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    const waits = async () => (await tm.getJobDetail(id))?.checkpoints.map((c) => c.name).sort();
    await tm.runUntilIdle();
    for (const wait of ['wait:go#1', 'wait:votes#1']) {
      assert.deepEqual((await waits())?.at(-1), wait);
      await tm.clock.advance(0.199);
      assert.equal((await tm.runUntilIdle()).attempts, 0, `${wait} timed out early`);
      await tm.clock.advance(0.001);
      assert.equal((await tm.runUntilIdle()).attempts, 1);
    }
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.output, {
      one: { timedOut: true, name: null, payload: null },
      many: { timedOut: true, payloads: [] },
    });
    const states = (await tm.getJobDetail(id))?.checkpoints.map((c) => [
      c.name,
      (c.output as { state: string }).state,
    ]);
    assert.deepEqual(states?.sort(), [
      ['wait:go#1', 'timed-out'],
      ['wait:votes#1', 'timed-out'],
    ]);
  });

  test('delivery wakes the waiting job at once, not at the next poll', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { go: 1 },
      handler: async (_job, ctx) => (await ctx.waitForSignal('go')).payload,
    });
    // Polls and ticks far apart: only the notification can wake the worker in time.
    await startWorker(tm, { pollIntervalSeconds: 30, tickIntervalSeconds: 600 });
    const { id } = await tm.addJob({ queue: 'wf' });
    await waitForStatus(tm, id, 'waiting');
    await tm.signal(id, 'go', 'now');
    assert.equal((await waitForStatus(tm, id, 'completed', 20_000)).output, 'now');
  });

  test('waiting on a signal the queue did not declare fails with UnknownSignalError', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      signals: { go: 1 },
      handler: (_job, ctx) => ctx.waitForSignal('undeclared'),
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const failed = await waitForStatus(tm, id, 'failed');
    assert.equal(failed.error?.name, 'UnknownSignalError');
    assert.match(failed.error?.message ?? '', /undeclared/);
  });

  test('waiting for more signals than the mailbox holds fails at once instead of waiting forever', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      signals: { votes: 2 },
      handler: (_job, ctx) => ctx.waitForSignals('votes', 3),
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const failed = await waitForStatus(tm, id, 'failed');
    assert.equal(failed.error?.name, 'InvalidOptionError');
    assert.match(failed.error?.message ?? '', /count/);
  });
});
