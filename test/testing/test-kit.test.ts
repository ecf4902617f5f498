import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { InvalidOptionError, type Job, StillBusyError } from '../../src/index.js';
import { createTestTidemark, expectJob, type TestTidemark } from '../../src/testing/index.js';

const DAY = 86_400;
const START = new Date('2030-01-01T00:00:00Z');

/** Milliseconds since `t0`, for the diagnostics a run prints (never asserted). */
const since = (t0: number) => `${Math.round(performance.now() - t0)} ms`;

/** One engine for the file (tests use queues of their own), as a user's suite shares one per file. */
describe('tidemark/testing: the clock the engine reads', () => {
  let tm: TestTidemark;
  before(async () => {
    tm = await createTestTidemark({ now: START });
  });
  after(() => tm.close());

  test('a day-long workflow: sleep 24 h, then a signal wait of 7 days that times out', async (t) => {
    const t0 = performance.now();
    tm.createQueue({
      name: 'day-long',
      signals: { approve: 1 },
      handler: async (_job, ctx) => {
        await ctx.sleep('nap', DAY);
        const answer = await ctx.waitForSignal('approve', { timeoutSeconds: 7 * DAY });
        return { timedOut: answer.timedOut };
      },
    });
    const { id } = await tm.addJob({ queue: 'day-long', data: {} });
    await tm.runUntilIdle();
    const asleep = await tm.getJob(id);
    assert.equal(asleep?.status, 'waiting');
    assert.equal(asleep?.runAt.getTime(), tm.clock.now().getTime() + DAY * 1000, 'due a day after the clock');
    await tm.clock.advance(DAY - 1);
    await tm.runUntilIdle();
    assert.equal(
      (await tm.getJob(id))?.runAt.getTime(),
      asleep?.runAt.getTime(),
      'a second early: still asleep',
    );
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    const waiting = await tm.getJob(id);
    assert.equal(waiting?.status, 'waiting');
    assert.equal(waiting?.runAt.toISOString(), '2030-01-09T00:00:00.000Z', 'the wait times out 7 days later');
    await tm.clock.advance(7 * DAY);
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.output, { timedOut: true });
    assert.equal(done?.finishedAt?.toISOString(), '2030-01-09T00:00:00.000Z', 'finished at the test time');
    t.diagnostic(`8 days of workflow in ${since(t0)}`);
  });

  test('the same workflow signalled in time completes with the payload', async () => {
    tm.createQueue({
      name: 'approved',
      signals: { approve: 1 },
      handler: async (_job, ctx) => (await ctx.waitForSignal('approve', { timeoutSeconds: 7 * DAY })).payload,
    });
    const { id } = await tm.addJob({ queue: 'approved', data: {} });
    await tm.runUntilIdle();
    await tm.clock.advance(3 * DAY);
    await tm.signal(id, 'approve', { by: 'ada' });
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, { by: 'ada' });
  });

  test('a 30-day retention window: kept a second before, swept at the window', async (t) => {
    const t0 = performance.now();
    tm.createQueue({ name: 'kept', handler: () => 'ok', retention: { completed: 30 * DAY } });
    const { id } = await tm.addJob({ queue: 'kept', data: {} });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
    await tm.clock.advance(30 * DAY - 1);
    await tm.sweep();
    assert.ok(await tm.getJob(id), 'a second before the window closes, the job is kept');
    await tm.clock.advance(1);
    const swept = await tm.sweep();
    assert.equal(await tm.getJob(id), null, 'at the window it is swept');
    assert.ok(swept.jobs >= 1);
    t.diagnostic(`30 days of retention in ${since(t0)}`);
  });

  test('delays and runAt wait for the clock', async () => {
    tm.createQueue({ name: 'later', handler: () => null });
    const delayed = await tm.addJob({ queue: 'later', data: 1, delaySeconds: 3_600 });
    const at = await tm.addJob({
      queue: 'later',
      data: 2,
      runAt: new Date(tm.clock.now().getTime() + 7_200_000),
    });
    await tm.runUntilIdle();
    assert.deepEqual(
      (await tm.jobs('later')).map((j) => j.status),
      ['pending', 'pending'],
    );
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(delayed.id))?.status, 'completed');
    assert.equal((await tm.getJob(at.id))?.status, 'pending');
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(at.id))?.status, 'completed');
  });

  test('backoff waits for the clock: no attempt runs before its delay', async () => {
    let runs = 0;
    tm.createQueue({
      name: 'flaky',
      maxAttempts: 3,
      backoff: { delaySeconds: 60, factor: 2, jitter: false },
      handler: () => {
        runs++;
        if (runs < 3) throw new Error(`try ${runs}`);
        return runs;
      },
    });
    const { id } = await tm.addJob({ queue: 'flaky', data: {} });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'retry');
    await tm.clock.advance(59);
    await tm.runUntilIdle();
    assert.equal(runs, 1, 'a second early: no second attempt');
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    assert.equal(runs, 2);
    await tm.clock.advance(120);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
    assert.equal(runs, 3);
  });

  test('a job past its expiry before it starts expires', async () => {
    tm.createQueue({ name: 'perishable', handler: () => null });
    const { id } = await tm.addJob({ queue: 'perishable', data: {}, expireInSeconds: 60 });
    await tm.clock.advance(61);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'expired');
  });

  test('a lock that lapses is recovered once the clock passes it, and the job runs', async () => {
    tm.createQueue({ name: 'orphan', handler: () => 'recovered' });
    const { id } = await tm.addJob({ queue: 'orphan', data: {} });
    // A worker that claims and then dies: its lock runs 60 s of test time.
    await engineOf(tm).storage.attempts.claimJobs(['orphan'], 1, 'a-dead-worker', 60);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'active', 'locked: nothing runs it');
    await tm.clock.advance(61);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'completed');
    assert.equal(job?.output, 'recovered');
  });

  test('the tick runs before the first claim: a recovered job is claimed with the job already due', async () => {
    // An engine of its own: which statement goes first depends on the queues there are.
    const kit = await createTestTidemark({ now: START });
    const batches: number[][] = [];
    kit.createQueue({
      name: 'rows',
      batch: { maxSize: 10, maxWaitSeconds: 0 },
      handler: (jobs: Job<{ n: number }>[]) => {
        batches.push(jobs.map((job) => job.data.n).sort());
        return jobs.map((job) => ({ id: job.id, output: 'ok' }));
      },
    });
    const { attempts } = engineOf(kit).storage;
    await kit.addJob({ queue: 'rows', data: { n: 1 } });
    await attempts.claimJobs(['rows'], 1, 'a-dead-worker', 60);
    await kit.clock.advance(61);
    await kit.addJob({ queue: 'rows', data: { n: 2 } });
    // The size of each claim: on a server a claim beside the tick skips the rows the tick
    // holds, and a batch split that way runs its handler twice.
    const claims: number[] = [];
    const claimJobs = attempts.claimJobs;
    attempts.claimJobs = async (...args) => {
      const claimed = await claimJobs.apply(attempts, args);
      claims.push(claimed.length);
      return claimed;
    };
    try {
      await kit.runUntilIdle();
    } finally {
      await kit.close();
    }
    assert.equal(claims[0], 2, `the first claim took both jobs (claims: ${claims.join(', ')})`);
    assert.deepEqual(batches, [[1, 2]]);
  });

  test('a cron schedule fires when the clock reaches it', async () => {
    tm.createQueue({ name: 'hourly', handler: () => null });
    await tm.clock.set(new Date('2030-06-01T10:30:00Z'));
    await tm.schedule({ name: 'hourly', cron: '0 * * * *', queue: 'hourly', data: {} });
    await tm.runUntilIdle();
    assert.equal((await tm.jobs('hourly')).length, 0, 'not yet 11:00');
    await tm.clock.advance(30 * 60);
    await tm.runUntilIdle();
    await expectJob(tm, { queue: 'hourly', status: 'completed' });
    assert.equal((await tm.jobs('hourly')).length, 1);
  });

  test('an idempotency window closes with the clock', async () => {
    tm.createQueue({ name: 'once', handler: () => null });
    const first = await tm.addJob({ queue: 'once', data: 1, idempotencyKey: { key: 'k', ttlSeconds: 600 } });
    const again = await tm.addJob({ queue: 'once', data: 2, idempotencyKey: { key: 'k', ttlSeconds: 600 } });
    assert.equal(again.id, first.id, 'inside the window: the same job');
    await tm.clock.advance(601);
    const later = await tm.addJob({ queue: 'once', data: 3, idempotencyKey: { key: 'k', ttlSeconds: 600 } });
    assert.notEqual(later.id, first.id, 'past the window: a new job');
  });

  test('a run held to maxJobs 1 finishes its one job, and leaves the next run ten at a time', async () => {
    let running = 0;
    let most = 0;
    tm.createQueue({
      name: 'side-by-side',
      handler: async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
      },
    });
    await tm.runUntilIdle(); // what earlier tests left due, so that the counts below are this queue's
    await tm.addJobs(Array.from({ length: 6 }, () => ({ queue: 'side-by-side' })));
    assert.deepEqual(await tm.runUntilIdle({ maxJobs: 1 }), { attempts: 1, idle: false });
    assert.equal(most, 1);
    // The attempt it started finished: not cut short at the limit, to run (and count) again.
    assert.equal((await tm.jobs('side-by-side', { status: 'completed' })).length, 1);
    assert.deepEqual(await tm.runUntilIdle(), { attempts: 5, idle: true });
    assert.ok(most > 1, `jobs ran one at a time (${most}) after a run of maxJobs 1`);
  });

  test('maxJobs stops a job that adds itself forever, and says it was not idle', async () => {
    tm.createQueue({
      name: 'forever',
      handler: async (job) => {
        await tm.addJob({ queue: 'forever', data: (job.data as number) + 1 });
      },
    });
    await tm.addJob({ queue: 'forever', data: 0 });
    const result = await tm.runUntilIdle({ maxJobs: 5 });
    assert.equal(result.idle, false);
    assert.ok(result.attempts >= 5);
  });
});

describe('tidemark/testing: what is refused', () => {
  test('past maxJobsPerRun, runUntilIdle throws StillBusyError, and nothing runs after it', async () => {
    const tm = await createTestTidemark({ now: START, maxJobsPerRun: 20 });
    try {
      let runs = 0;
      tm.createQueue({
        name: 'forever',
        handler: async (job) => {
          runs++;
          await tm.addJob({ queue: 'forever', data: (job.data as number) + 1 });
        },
      });
      await tm.addJob({ queue: 'forever', data: 0 });
      await assert.rejects(
        tm.runUntilIdle(),
        (error: unknown) =>
          error instanceof StillBusyError && error.code === 'STILL_BUSY' && error.attempts >= 20,
      );
      const after = runs;
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(runs, after, 'the kit worker stopped with the error');
    } finally {
      await tm.close();
    }
  });

  test('a database other than memory:// is refused before anything opens', async () => {
    for (const database of ['postgres://postgres@127.0.0.1:5432/test', './folder']) {
      await assert.rejects(
        createTestTidemark({ database: database as 'memory://' }),
        (error: unknown) => error instanceof InvalidOptionError && error.field === 'database',
      );
    }
  });

  test('a clock moved backwards by advance, by NaN or to an invalid date is refused, and stays put', async () => {
    const tm = await createTestTidemark({ now: START });
    try {
      for (const seconds of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
        await assert.rejects(tm.clock.advance(seconds), InvalidOptionError);
      }
      await assert.rejects(tm.clock.set(new Date('nope')), InvalidOptionError);
      assert.equal(tm.clock.now().getTime(), START.getTime());
    } finally {
      await tm.close();
    }
  });
});
