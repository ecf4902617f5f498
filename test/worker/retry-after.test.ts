import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { InvalidOptionError, RetryAfter } from '../../src/index.js';
import { runHandler } from '../../src/testing/index.js';
import { describeEachDriver } from '../support/each-driver.js';

describeEachDriver('ctx.retryAfter', ({ openOnClock }) => {
  test('puts the job back as pending, due in the given seconds, without spending an attempt', async () => {
    const tm = await openOnClock();
    const deferred: unknown[] = [];
    const failed: string[] = [];
    tm.on('job:deferred', (event) => deferred.push(event));
    tm.on('job:failed', (event) => failed.push(event.id));
    let calls = 0;
    tm.createQueue({
      name: 'api',
      handler: (_job, ctx) => {
        calls++;
        if (calls <= 2) throw ctx.retryAfter(30, { reason: 'HTTP 429' });
        return 'sent';
      },
    });
    const { id } = await tm.addJob({ queue: 'api', maxAttempts: 1 });
    const addedAt = tm.clock.now().getTime();
    await tm.runUntilIdle();
    const parked = await tm.getJob(id);
    assert.equal(parked?.status, 'pending');
    assert.equal(parked?.attempts, 0, 'the deferred attempt is not spent');
    assert.equal(parked?.runAt.getTime(), addedAt + 30_000);
    assert.equal(parked?.lockedBy, null);
    assert.equal(parked?.error, null, 'a deferral is not a failure');
    assert.deepEqual(deferred, [{ id, queue: 'api', seconds: 30, reason: 'HTTP 429' }]);

    await tm.clock.advance(29.999);
    assert.equal((await tm.runUntilIdle()).attempts, 0, 'not run before its time');
    await tm.clock.advance(0.001);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'pending', 'deferred a second time');
    await tm.clock.advance(30);
    await tm.runUntilIdle();

    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed', 'two deferrals did not use up its one attempt');
    assert.equal(done?.output, 'sent');
    assert.equal(done?.attempts, 1);
    assert.deepEqual(failed, []);
    const log = await engineOf(tm).storage.reads.attemptLog(id);
    assert.deepEqual(
      log.map((entry) => [entry.attempt, entry.name, entry.message]),
      [
        [1, 'RetryAfter', 'retry after 30 s: HTTP 429'],
        [1, 'RetryAfter', 'retry after 30 s: HTTP 429'],
      ],
    );
  });

  test('a deferred workflow keeps its steps, and its expiry no longer applies', async () => {
    const tm = await openOnClock();
    let charged = 0;
    let tries = 0;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.step('charge', () => charged++);
        if (tries++ === 0) throw ctx.retryAfter(120);
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'wf', expireInSeconds: 60 });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.expireAt, null);
    await tm.clock.advance(120);
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed', 'not expired though deferred past its expiry');
    assert.equal(charged, 1, 'the step ran once');
  });

  test('a workflow deferred after resuming from a sleep does not spend its attempt either', async () => {
    const tm = await openOnClock();
    let deferred = false;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        await ctx.sleep('nap', 5);
        if (!deferred) {
          deferred = true;
          throw ctx.retryAfter(5);
        }
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'wf', maxAttempts: 1 });
    await tm.runUntilIdle();
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.attempts, 0);
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.equal(done?.attempts, 1);
  });

  test("a deferred job of a key frees the key's slot", async () => {
    const tm = await openOnClock();
    const ran: string[] = [];
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 1 },
      handler: (job, ctx) => {
        ran.push(String(job.data));
        if (job.data === 'first' && ran.length === 1) throw ctx.retryAfter(10);
      },
    });
    const first = await tm.addJob({ queue: 'q', key: 'k', data: 'first' });
    const second = await tm.addJob({ queue: 'q', key: 'k', data: 'second' });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(second.id))?.status, 'completed');
    assert.equal((await tm.getJob(first.id))?.status, 'pending');
    assert.deepEqual(ran, ['first', 'second']);
  });
});

test('ctx.retryAfter refuses bad seconds and reasons with a typed error naming the field', async () => {
  await runHandler((_job, ctx) => {
    for (const seconds of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
      assert.throws(
        () => ctx.retryAfter(seconds),
        (error: unknown) => {
          return error instanceof InvalidOptionError && error.field === 'seconds';
        },
      );
    }
    assert.throws(
      () => ctx.retryAfter(1, { reason: 'x'.repeat(1_001) }),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'reason',
    );
    const made = ctx.retryAfter(0.5, { reason: 'quota' });
    assert.ok(made instanceof RetryAfter);
    assert.equal(made.seconds, 0.5);
    assert.equal(made.reason, 'quota');
  }, null);
});
