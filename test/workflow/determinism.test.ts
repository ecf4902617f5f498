import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DuplicateStepError,
  type Handler,
  InvalidOptionError,
  type JobContext,
  NonDeterminismError,
} from '../../src/index.js';
import type { TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/**
 * A deploy under a run in flight: the queue's handler is whatever `code.now` is when a run
 * starts, so a test parks a run under one version and resumes it under the next.
 */
function deployable(first: Handler): { handler: Handler; code: { now: Handler } } {
  const code = { now: first };
  return { code, handler: (job, ctx) => code.now(job, ctx) };
}

/** A run of queue `wf` recorded as step 'a' then parked in sleep 'nap' (10 s), under deployable code. */
async function parkedRun(tm: TestTidemark): Promise<{ code: { now: Handler }; id: string }> {
  const { code, handler } = deployable(async (_job, ctx) => {
    await ctx.step('a', () => 1);
    await ctx.sleep('nap', 10);
  });
  tm.createQueue({ name: 'wf', handler });
  const { id } = await tm.addJob({ queue: 'wf' });
  await tm.runUntilIdle();
  return { code, id };
}

describeEachDriver('the determinism guard', ({ openOnClock }) => {
  test('reordered steps park the run as paused, its checkpoints kept; resumeJob after a fixed deploy continues it', async () => {
    const tm = await openOnClock();
    const ran: string[] = [];
    const step = (ctx: JobContext, name: string) => ctx.step(name, () => ran.push(name) && name);
    const original: Handler = async (_job, ctx) => {
      await step(ctx, 'charge');
      await step(ctx, 'ship');
      await ctx.sleep('cool-off', 60);
      return step(ctx, 'thank');
    };
    const { code, handler } = deployable(original);
    tm.createQueue({ name: 'order', handler });
    const paused: unknown[] = [];
    tm.on('job:paused', (event) => paused.push(event.error));
    const { id } = await tm.addJob({ queue: 'order' });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'waiting');

    code.now = async (_job, ctx) => {
      await step(ctx, 'ship');
      await step(ctx, 'charge');
      await ctx.sleep('cool-off', 60);
      return step(ctx, 'thank');
    };
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    const detail = await tm.getJobDetail(id);
    assert.equal(detail?.job.status, 'paused', String(detail?.job.error?.message));
    assert.equal(detail?.job.error?.name, 'NonDeterminismError');
    assert.match(
      String(detail?.job.error?.message),
      /record has step 'charge' at call 1, but the code called step 'ship'/,
    );
    assert.equal(detail?.job.attempts, 0, 'the parked run spent no attempt');
    assert.ok(paused[0] instanceof NonDeterminismError);
    assert.deepEqual(
      detail?.checkpoints.map((c) => [c.seq, c.kind, c.name]),
      [
        [1, 'step', 'charge'],
        [2, 'step', 'ship'],
        [3, 'sleep', 'cool-off'],
      ],
    );
    assert.equal(detail?.history.attempts.at(-1)?.outcome, 'paused');

    code.now = original;
    await tm.resumeJob(id);
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed', String(done?.error?.message));
    assert.equal(done?.output, 'thank');
    assert.deepEqual(ran, ['charge', 'ship', 'thank'], 'no step ran twice');
  });

  test('a removed step, another kind at a place, and a run that ends without a recorded call are caught', async () => {
    const tm = await openOnClock();
    const { code, handler } = deployable(async (_job, ctx) => {
      await ctx.step('a', () => 1);
      await ctx.step('b', () => 2);
      await ctx.sleep('nap', 10);
      await ctx.step('c', () => 3);
    });
    tm.createQueue({ name: 'wf', handler });
    const removed = await tm.addJob({ queue: 'wf' });
    const otherKind = await tm.addJob({ queue: 'wf' });
    const ended = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(10);

    const runs: Record<string, Handler> = {
      [removed.id]: async (_job, ctx) => {
        await ctx.step('a', () => 1);
        await ctx.sleep('nap', 10);
      },
      [otherKind.id]: async (_job, ctx) => {
        await ctx.step('a', () => 1);
        await ctx.sleep('b', 10);
      },
      [ended.id]: async (_job, ctx) => {
        await ctx.step('a', () => 1);
        await ctx.step('b', () => 2);
      },
    };
    code.now = (job, ctx) => runs[job.id](job, ctx);
    await tm.runUntilIdle();
    const messageOf = async (id: string) => {
      const job = await tm.getJob(id);
      assert.equal(job?.status, 'paused');
      return String(job?.error?.message);
    };
    assert.match(await messageOf(removed.id), /step 'b' at call 2, but the code called sleep 'nap'/);
    assert.match(await messageOf(otherKind.id), /step 'b' at call 2, but the code called sleep 'b'/);
    assert.match(await messageOf(ended.id), /sleep 'nap' at call 3, but the code ended the run/);
  });

  test('a handler that catches the error is parked all the same, and later calls rethrow it', async () => {
    const tm = await openOnClock();
    let later: unknown = null;
    const { code, handler } = deployable(async (_job, ctx) => {
      await ctx.step('a', () => 1);
      await ctx.sleep('nap', 5);
    });
    tm.createQueue({ name: 'wf', handler });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    code.now = async (_job, ctx) => {
      try {
        await ctx.step('z', () => 0);
      } catch {
        later = await ctx.step('y', () => 0).catch((error: unknown) => error);
      }
      return 'swallowed';
    };
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'paused');
    assert.ok(later instanceof NonDeterminismError);
  });

  test('a step added behind ctx.patched runs for new runs only; old runs take the old path', async () => {
    const tm = await openOnClock();
    const ran: string[] = [];
    const { code, handler } = deployable(async (_job, ctx) => {
      await ctx.step('a', () => ran.push('a'));
      await ctx.sleep('nap', 10);
      return ctx.step('c', () => 'c');
    });
    tm.createQueue({ name: 'wf', handler });
    const old = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();

    const answers: Record<string, boolean[]> = {};
    code.now = async (job, ctx) => {
      await ctx.step('a', () => ran.push('a'));
      const patched = await ctx.patched('audit-first');
      answers[job.id] = [...(answers[job.id] ?? []), patched];
      if (patched) await ctx.step('audit', () => ran.push(`audit ${job.id}`));
      await ctx.sleep('nap', 10);
      return ctx.step('c', () => 'c');
    };
    const fresh = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(old.id))?.status, 'completed');
    assert.equal((await tm.getJob(fresh.id))?.status, 'completed');
    assert.deepEqual(answers[old.id], [false], 'recorded past the patch without it');
    assert.deepEqual(answers[fresh.id], [true, true], 'true on its first run and on replay');
    assert.deepEqual(ran, ['a', 'a', `audit ${fresh.id}`]);
  });

  test('a retired patch: code that no longer asks passes over the recorded marker', async () => {
    const tm = await openOnClock();
    const { code, handler } = deployable(async (_job, ctx) => {
      if (await ctx.patched('v2')) await ctx.step('new', () => 'new');
      await ctx.sleep('nap', 10);
      return 'done';
    });
    tm.createQueue({ name: 'wf', handler });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    code.now = async (_job, ctx) => {
      await ctx.step('new', () => 'new');
      await ctx.sleep('nap', 10);
      return 'done';
    };
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
  });

  test('a step added without a patch is caught', async () => {
    const tm = await openOnClock();
    const { code, id } = await parkedRun(tm);
    code.now = async (_job, ctx) => {
      await ctx.step('a', () => 1);
      await ctx.step('added', () => 2);
      await ctx.sleep('nap', 10);
    };
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.match(
      String((await tm.getJob(id))?.error?.message),
      /sleep 'nap' at call 2, but the code called step 'added'/,
    );
  });

  test('steps started together keep their places: one that failed beside a saved one is retried without a false alarm', async () => {
    const tm = await openOnClock();
    let tries = 0;
    tm.createQueue({
      name: 'wf',
      backoff: { delaySeconds: 1 },
      handler: async (_job, ctx) => {
        const [a, b] = await Promise.all([
          ctx.step('a', () => {
            tries++;
            if (tries === 1) throw new Error('flaky');
            return 'a';
          }),
          ctx.step('b', () => 'b'),
        ]);
        return a + b;
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'completed', String(job?.error?.message));
    assert.equal(job?.output, 'ab');
  });

  test('named children and waits keep their keys; a name used twice is a DuplicateStepError', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'child', handler: (job) => `child of ${String(job.data)}` });
    const seen: unknown[] = [];
    tm.createQueue({
      name: 'wf',
      signals: { approve: 1 },
      handler: async (_job, ctx) => {
        const first = await ctx.runChild('child', 'x', { name: 'make-x' });
        const answer = await ctx.waitForSignal('approve', { name: 'manager', timeoutSeconds: 30 });
        seen.push(await ctx.step('dup', () => 1).catch((e: unknown) => e));
        seen.push(await ctx.runChild('child', 'y', { name: 'dup' }).catch((e: unknown) => e));
        seen.push(await ctx.runChild('child', 'y', { name: 'bad#1' }).catch((e: unknown) => e));
        seen.push(await ctx.step('child:x', () => 1).catch((e: unknown) => e));
        return { first, answer: answer.timedOut };
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(30);
    await tm.runUntilIdle();
    const detail = await tm.getJobDetail(id);
    assert.equal(detail?.job.status, 'completed');
    assert.deepEqual(detail?.job.output, { first: 'child of x', answer: true });
    const names = detail?.checkpoints.map((c) => `${c.seq}:${c.kind}:${c.name}`);
    assert.deepEqual(names?.slice(0, 2), ['1:child:child:make-x', '2:wait:wait:manager']);
    assert.ok(seen[1] instanceof DuplicateStepError);
    assert.ok(seen[2] instanceof InvalidOptionError);
    assert.ok(seen[3] instanceof InvalidOptionError, 'child: is reserved for the record of children');
  });

  test('runs written before the record have no places and are not checked', async () => {
    const tm = await openOnClock();
    const { code, id } = await parkedRun(tm);
    await rawQuery(tm, `update "${tm.schema}".checkpoints set seq = null where job_id = $1`, [id]);
    code.now = async (_job, ctx) => {
      await ctx.sleep('nap', 10);
      return ctx.step('a', () => 1);
    };
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
  });

  test("a queue's version is stamped on its jobs, and listJobs and countJobs find them by it", async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'wf', version: 'v1', handler: () => null });
    const v1 = await tm.addJob({ queue: 'wf' });
    tm.createQueue({ name: 'wf', version: 'v2', handler: () => null });
    const [v2] = await tm.addJobs([{ queue: 'wf' }]);
    tm.createQueue({ name: 'plain', handler: () => null });
    const plain = await tm.addJob({ queue: 'plain' });
    assert.equal((await tm.getJob(v1.id))?.version, 'v1');
    assert.equal((await tm.getJob(v2.id))?.version, 'v2');
    assert.equal((await tm.getJob(plain.id))?.version, null);
    const page = await tm.listJobs({ version: 'v1' });
    assert.deepEqual(
      page.jobs.map((job) => job.id),
      [v1.id],
    );
    assert.deepEqual(await tm.countJobs({ queue: 'wf', version: 'v2' }), { count: 1, exact: true });
    assert.throws(
      () => tm.createQueue({ name: 'bad', version: '', handler: () => null }),
      InvalidOptionError,
    );
  });

  test('branches of a Promise.all replaying in another order than they first finished are not a mismatch', async () => {
    const tm = await openOnClock();
    const ran: string[] = [];
    let slowFirst = true;
    tm.createQueue({
      name: 'fan',
      handler: async (_job, ctx) => {
        // On the first run branch y finishes its fetch first; on replay both fetches answer at once.
        const branch = async (item: string, delayMs: number) => {
          await ctx.step(`fetch-${item}`, async () => {
            if (slowFirst) await new Promise((resolve) => setTimeout(resolve, delayMs));
            ran.push(`fetch-${item}`);
            return item;
          });
          await ctx.step(`save-${item}`, () => ran.push(`save-${item}`));
        };
        await Promise.all([branch('x', 30), branch('y', 0)]);
        await ctx.sleep('nap', 10);
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'fan' });
    await tm.runUntilIdle();
    slowFirst = false;
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'completed', String(job?.error?.message));
    // y's fetch finished first; x's may finish before or after y's save, as the machine goes.
    assert.equal(ran[0], 'fetch-y');
    assert.deepEqual([...ran].sort(), ['fetch-x', 'fetch-y', 'save-x', 'save-y'], 'no step ran twice');
  });

  test('a step that failed and is caught, then succeeds on a retry, may lead another way without a false alarm', async () => {
    const tm = await openOnClock();
    let tries = 0;
    tm.createQueue({
      name: 'wf',
      backoff: { delaySeconds: 1 },
      handler: async (_job, ctx) => {
        tries++;
        try {
          await ctx.step('primary', () => {
            if (tries === 1) throw new Error('primary down');
            return 'primary';
          });
        } catch {
          await ctx.step('fallback', () => 'fallback');
        }
        return ctx.step('finish', () => {
          if (tries === 1) throw new Error('finish failed once');
          return 'finished';
        });
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'retry');
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'completed', String(job?.error?.message));
    assert.equal(job?.output, 'finished');
  });

  test('the same patch asked twice in a run answers the same on every replay', async () => {
    const tm = await openOnClock();
    const answers: boolean[] = [];
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        answers.push(await ctx.patched('v2'));
        await ctx.step('a', () => 1);
        answers.push(await ctx.patched('v2'));
        await ctx.sleep('nap', 10);
        return ctx.step('b', () => 2);
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
    assert.deepEqual(answers, [true, true, true, true]);
  });

  test('a run recorded before places existed answers false to a patch it has recorded past', async () => {
    const tm = await openOnClock();
    const { code, id } = await parkedRun(tm);
    await rawQuery(tm, `update "${tm.schema}".checkpoints set seq = null where job_id = $1`, [id]);
    let answer: boolean | null = null;
    code.now = async (_job, ctx) => {
      await ctx.step('a', () => 1);
      answer = await ctx.patched('new-step');
      if (answer) await ctx.step('new', () => 2);
      await ctx.sleep('nap', 10);
    };
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
    assert.equal(answer, false);
  });
});
