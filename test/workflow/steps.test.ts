import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { type Logger, silentLogger, type Tidemark } from '../../src/index.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';
import { count, sleepWakeAt, startWorker, table, waitForStatus } from './fixtures/helpers.js';

const NO_BACKOFF = { delaySeconds: 0, jitter: false };

/** Counts calls of each step body, across attempts (all attempts run in this process). */
function counter() {
  const calls = new Map<string, number>();
  return {
    calls,
    hit(name: string) {
      calls.set(name, (calls.get(name) ?? 0) + 1);
    },
    get: (name: string) => calls.get(name) ?? 0,
  };
}

async function checkpointNames(tm: Tidemark, id: string): Promise<string[]> {
  const detail = await tm.getJobDetail(id);
  return (detail?.checkpoints ?? [])
    .filter((c) => c.kind !== 'step-failed')
    .map((c) => c.name)
    .sort();
}

describeEachDriver('ctx.step', ({ open }) => {
  test('a retried attempt returns stored step results without running them again', async () => {
    const tm = await open({ logger: silentLogger });
    const c = counter();
    tm.createQueue({
      name: 'wf',
      maxAttempts: 3,
      backoff: NO_BACKOFF,
      handler: async (job, ctx) => {
        const a = await ctx.step('a', () => {
          c.hit('a');
          return { value: 41 };
        });
        if (job.attempts === 1) throw new Error('first attempt fails after step a');
        const b = await ctx.step('b', () => {
          c.hit('b');
          return a.value + 1;
        });
        return { a, b };
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await startWorker(tm);
    const done = await waitForStatus(tm, id, 'completed');
    assert.deepEqual(done.output, { a: { value: 41 }, b: 42 });
    assert.equal(done.attempts, 2);
    assert.equal(c.get('a'), 1);
    assert.equal(c.get('b'), 1);
    assert.deepEqual(await checkpointNames(tm, id), ['a', 'b']);
  });

  test('an attempt recovered after its lock lapsed replays completed steps', async () => {
    const tm = await open({ logger: silentLogger });
    const c = counter();
    tm.createQueue({
      name: 'wf',
      maxAttempts: 3,
      handler: async (job, ctx) => {
        await ctx.step('a', () => c.hit('a'));
        if (job.attempts === 1) {
          // Hang like a stuck worker until the lock is lost.
          await new Promise((_, reject) =>
            ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
          );
        }
        await ctx.step('b', () => c.hit('b'));
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    // A long tick interval: this test runs the recovery itself.
    await startWorker(tm, { tickIntervalSeconds: 3600 });
    await waitFor('step a checkpoint', async () => (await checkpointNames(tm, id)).includes('a'));
    // The attempt stalls: its lock lapses and its token no longer matches (as after a crash),
    // and its worker has not beaten since (recovery spares the jobs of a worker that beats).
    await rawQuery(tm, `update ${table(tm, 'workers')} set heartbeat_at = now() - interval '1 hour'`);
    await rawQuery(
      tm,
      `update ${table(tm, 'jobs')} set lock_token = gen_random_uuid(), locked_until = now() - interval '1 second' where id = $1`,
      [id],
    );
    const recovered = await tickOnce(tickInputs(engineOf(tm)));
    assert.equal(recovered.stalled, 1);
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.attempts, 2);
    assert.equal(c.get('a'), 1);
    assert.equal(c.get('b'), 1);
  });

  test('retryJob after a final failure replays completed steps', async () => {
    const tm = await open({ logger: silentLogger });
    const c = counter();
    let fail = true;
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        const a = await ctx.step('a', () => {
          c.hit('a');
          return 'A';
        });
        if (fail) throw new Error('boom');
        return a;
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await startWorker(tm);
    await waitForStatus(tm, id, 'failed');
    fail = false;
    await tm.retryJob(id);
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 'A');
    assert.equal(c.get('a'), 1);
  });

  test('a step name used twice in one run fails the attempt with DuplicateStepError', async () => {
    const tm = await open({ logger: silentLogger });
    const c = counter();
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        await ctx.step('same', () => c.hit('first'));
        await ctx.step('same', () => c.hit('second'));
      },
    });
    tm.createQueue({
      name: 'mixed',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        await ctx.step('nap', () => 1);
        await ctx.sleep('nap', 1);
      },
    });
    const a = await tm.addJob({ queue: 'wf' });
    const b = await tm.addJob({ queue: 'mixed' });
    await startWorker(tm);
    const failed = await waitForStatus(tm, a.id, 'failed');
    assert.equal(failed.error?.name, 'DuplicateStepError');
    assert.match(failed.error?.message ?? '', /same/);
    assert.equal(c.get('second'), 0);
    assert.equal((await waitForStatus(tm, b.id, 'failed')).error?.name, 'DuplicateStepError');
  });

  test('a step may not take a name reserved for signal waits, whose state it would read', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      signals: { go: 1 },
      handler: async (_job, ctx) => {
        const five = await ctx.step('wait:go#1', () => 5);
        await ctx.waitForSignal('go');
        return five;
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.signal(id, 'go', 'x');
    await startWorker(tm);
    const failed = await waitForStatus(tm, id, 'failed');
    assert.equal(failed.error?.name, 'InvalidOptionError');
    assert.match(failed.error?.message ?? '', /reserved/);
  });

  test('a step name with a NUL character fails the attempt with a typed error, not a database error', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      handler: async (_job, ctx) => ctx.step('bad\u0000name', () => 1),
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await startWorker(tm);
    const failed = await waitForStatus(tm, id, 'failed');
    assert.equal(failed.error?.name, 'InvalidOptionError');
    assert.deepEqual(await checkpointNames(tm, id), []);
  });

  test('a step that throws is not checkpointed and runs again on the next attempt', async () => {
    const tm = await open({ logger: silentLogger });
    const c = counter();
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        await ctx.step('ok', () => c.hit('ok'));
        return ctx.step('flaky', () => {
          c.hit('flaky');
          if (c.get('flaky') === 1) throw new Error('flaky failed');
          return 'fine';
        });
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await startWorker(tm);
    await waitForStatus(tm, id, 'failed');
    assert.deepEqual(await checkpointNames(tm, id), ['ok']);
    await tm.retryJob(id);
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 'fine');
    assert.equal(c.get('ok'), 1);
    assert.equal(c.get('flaky'), 2);
    assert.equal(await count(tm, 'checkpoints', 'job_id = $1', [id]), 2);
  });
});

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warnings, warn: (message) => warnings.push(message), child: undefined };
}

describeEachDriver('a handler that catches its suspension', ({ open }) => {
  test('still suspends: it neither completes early nor runs further steps', async () => {
    const logger = recordingLogger();
    const tm = await open({ logger });
    const seen = { caught: 0, caughtAgain: 0, after: 0 };
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        try {
          await ctx.sleep('nap', 0.5);
        } catch {
          seen.caught++;
        }
        try {
          await ctx.step('after', () => seen.after++);
        } catch {
          seen.caughtAgain++;
        }
        return 'done';
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 'done');
    const wakeAt = await sleepWakeAt(tm, id, 'nap');
    assert.ok(done.finishedAt && done.finishedAt.getTime() >= wakeAt.getTime(), 'completed after the timer');
    assert.deepEqual(seen, { caught: 1, caughtAgain: 1, after: 1 });
    assert.ok(logger.warnings.some((w) => w.includes('caught a workflow suspension')));
  });
});
