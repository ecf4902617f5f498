import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import {
  InvalidOptionError,
  LimiterNotFoundError,
  RetryAfter,
  silentLogger,
  type Tidemark,
} from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { sleep, waitFor } from '../support/wait-for.js';

type Call = { account: string; n: number };

describeEachDriver('rate limits', ({ open, openOnClock }) => {
  test('a granted job that waits in the buffer past its guard goes back and is claimed again', async () => {
    const tm = await open({ logger: silentLogger });
    // A guard of 50 ms: a job must start within it of its grant.
    await tm.defineLimiter('roomy', { limit: 1_000, periodSeconds: 1, burst: 999 });
    const waited: number[] = [];
    tm.createQueue({
      name: 'slow-first',
      limiters: [{ name: 'roomy' }],
      handler: async (job) => {
        waited.push(Date.now() - (job.startedAt as Date).getTime());
        if ((job.data as Call).n === 0) await new Promise((resolve) => setTimeout(resolve, 1_000));
      },
    });
    await tm.addJobs(Array.from({ length: 5 }, (_, n) => ({ queue: 'slow-first', data: { n } })));
    const worker = tm.worker({ concurrency: 1, prefetch: 20, sweep: false, uniqueLockSweep: false });
    await worker.start();
    await waitFor('every job to start', () => waited.length === 5);
    await worker.stop();
    // Held behind the slow job, the four others would have started a second after their claim.
    // The bound leaves room for a loaded machine's claim (300 ms seen under a full test run).
    assert.ok(
      waited.every((ms) => ms < 600),
      `waits from claim to start: ${waited.join(', ')} ms`,
    );
  });

  test('a grant whose answer reaches the worker past its guard (the process stalled) starts nothing; its jobs go back and start from a later grant', async () => {
    const tm = await open({ logger: silentLogger });
    // A guard of 50 ms, a quarter of the stall.
    await tm.defineLimiter('roomy', { limit: 1_000, periodSeconds: 1, burst: 999 });
    const tokenCalls = stallFirstAnswer(tm, 200);
    const callsAtStart = await startAll(tm, 'roomy', 5, tokenCalls);
    assert.ok(
      callsAtStart.every((seen) => seen >= 2),
      `calls for tokens made when each job started: ${callsAtStart.join(', ')} (1: from the stalled grant)`,
    );
    const rows = await rawQuery<{ status: string; attempts: number }>(
      tm,
      `select status, attempts from "${tm.schema}".jobs where queue = 'stalled'`,
    );
    assert.deepEqual(
      rows.map((row) => `${row.status}/${row.attempts}`),
      Array(5).fill('completed/1'),
      'given back as they were: the late grant spent no attempt',
    );
  });

  test('a long period has a guard of a thousandth of it: a stall of 200 ms spends no hour of a limiter of one start an hour', async () => {
    const tm = await open({ logger: silentLogger });
    await tm.defineLimiter('hourly', { limit: 1, periodSeconds: 3_600 });
    // (3,600 s + a guard of 3.6 s) / 1
    assert.equal((await tm.limiterStatus('hourly')).spacingSeconds, 3_603.6);
    const tokenCalls = stallFirstAnswer(tm, 200);
    const callsAtStart = await startAll(tm, 'hourly', 1, tokenCalls);
    assert.deepEqual(callsAtStart, [1], 'started from the stalled grant, within its guard');
  });

  test('a limiter spaces starts by period over limit; a full bucket lets burst + 1 start at once', async () => {
    const tm = await openOnClock();
    await tm.defineLimiter('api', { limit: 2, periodSeconds: 10, burst: 1 });
    const started: number[] = [];
    tm.createQueue({
      name: 'calls',
      limiters: [{ name: 'api' }],
      handler: (job) => {
        started.push((job.data as Call).n);
      },
    });
    await tm.addJobs(Array.from({ length: 5 }, (_, n) => ({ queue: 'calls', data: { n } })));
    await tm.runUntilIdle();
    assert.deepEqual(started, [0, 1], 'a full bucket holds burst + 1 tokens');
    const status = await tm.limiterStatus('api');
    assert.equal(status.tokens, 0);
    assert.equal(status.capacity, 2);
    assert.equal(status.waiting, 3, 'the three held back wait for their turn');
    // (10 s + a guard of 50 ms) / 2: one token each 5.025 s.
    assert.equal(status.spacingSeconds, 5.025);
    const [held] = await rawQuery<{ status: string; attempts: number; held_by: string }>(
      tm,
      `select status, attempts, held_by from "${tm.schema}".jobs where data->>'n' = '2'`,
    );
    assert.deepEqual(held, { status: 'pending', attempts: 0, held_by: 'api' }, 'held back, no attempt spent');

    await tm.clock.advance(5);
    await tm.runUntilIdle();
    assert.deepEqual(started, [0, 1], 'no token before its time');
    await tm.clock.advance(0.025);
    await tm.runUntilIdle();
    assert.deepEqual(started, [0, 1, 2], 'one token, one start, in the order they were held');
    await tm.clock.advance(5.025 * 2);
    await tm.runUntilIdle();
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal((await tm.limiterStatus('api')).waiting, 0);
  });

  test('a key at its limit holds back its own jobs only; other keys start at once', async () => {
    const tm = await openOnClock();
    await tm.defineLimiter('per-account', { limit: 1, periodSeconds: 60 });
    const started: string[] = [];
    tm.createQueue({
      name: 'sync',
      limiters: [{ name: 'per-account', key: (data) => (data as Call).account }],
      handler: (job) => {
        const { account, n } = job.data as Call;
        started.push(`${account}${n}`);
      },
    });
    await tm.addJobs(Array.from({ length: 50 }, (_, n) => ({ queue: 'sync', data: { account: 'a', n } })));
    await tm.addJob({ queue: 'sync', data: { account: 'b', n: 0 } });
    await tm.runUntilIdle();
    assert.deepEqual(started, ['a0', 'b0']);
    assert.equal((await tm.limiterStatus('per-account', { key: 'a' })).waiting, 49);
    assert.equal((await tm.limiterStatus('per-account', { key: 'b' })).waiting, 0);
    assert.equal((await tm.limiterStatus('per-account', { key: 'c' })).tokens, 1, 'an unused key is full');
  });

  test('a cost takes that many tokens; a cost that is no whole number, or more than the bucket holds, fails the job and takes nothing', async () => {
    const tm = await openOnClock();
    await tm.defineLimiter('rows', { limit: 10, periodSeconds: 10, burst: 9 });
    const started: number[] = [];
    tm.createQueue({
      name: 'imports',
      maxAttempts: 3,
      limiters: [{ name: 'rows', cost: (data) => Number((data as { rows: unknown }).rows) }],
      handler: (job) => {
        started.push((job.data as { rows: number }).rows);
      },
    });
    const bad = await tm.addJob({ queue: 'imports', data: { rows: 'many' } });
    const negative = await tm.addJob({ queue: 'imports', data: { rows: -1 } });
    const huge = await tm.addJob({ queue: 'imports', data: { rows: 11 } });
    await tm.runUntilIdle();
    for (const { id } of [bad, negative, huge]) {
      const job = await tm.getJob(id);
      assert.equal(job?.status, 'failed', 'not retried');
      assert.equal(job?.attempts, 1);
      assert.equal(job?.error?.name, 'LimiterRefusedError');
      assert.match(String(job?.error?.message), /limiters\[0\]\.cost/);
    }
    assert.deepEqual(started, []);
    assert.equal((await tm.limiterStatus('rows')).tokens, 10, 'no token moved');
    await tm.addJob({ queue: 'imports', data: { rows: 7 } });
    await tm.addJob({ queue: 'imports', data: { rows: 4 } });
    await tm.runUntilIdle();
    assert.deepEqual(started, [7]);
    assert.equal((await tm.limiterStatus('rows')).tokens, 3);
  });

  test('a job of a limiter that does not exist fails with LimiterNotFoundError and is not retried', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'q', limiters: [{ name: 'nope' }], handler: () => 'ran' });
    const { id } = await tm.addJob({ queue: 'q' });
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'failed');
    assert.equal(job?.error?.name, 'LimiterNotFoundError');
    await assert.rejects(tm.limiterStatus('nope'), LimiterNotFoundError);
  });

  test('retryAfter with drainLimiter empties the bucket of the job for that long', async () => {
    const tm = await openOnClock();
    await tm.defineLimiter('partner', { limit: 100, periodSeconds: 1, burst: 99 });
    let calls = 0;
    const started: number[] = [];
    tm.createQueue({
      name: 'push',
      limiters: [{ name: 'partner', key: (data) => (data as Call).account }],
      handler: (job, ctx) => {
        started.push((job.data as Call).n);
        if (calls++ === 0) throw ctx.retryAfter(30, { reason: 'HTTP 429', drainLimiter: true });
      },
    });
    await tm.addJob({ queue: 'push', data: { account: 'a', n: 0 } });
    await tm.runUntilIdle();
    await tm.addJob({ queue: 'push', data: { account: 'a', n: 1 } });
    await tm.addJob({ queue: 'push', data: { account: 'b', n: 2 } });
    await tm.runUntilIdle();
    assert.deepEqual(started, [0, 2], "the drained key's jobs wait; another key's do not");
    const drained = await tm.limiterStatus('partner', { key: 'a' });
    assert.equal(drained.tokens, 0, 'an emptied bucket holds no token, not a debt');
    assert.equal(
      drained.nextTokenAt?.getTime(),
      tm.clock.now().getTime() + 30_000,
      'the next one comes after the delay',
    );
    await tm.clock.advance(29.9);
    await tm.runUntilIdle();
    assert.deepEqual(started, [0, 2]);
    await tm.clock.advance(0.1);
    await tm.runUntilIdle();
    assert.equal(started.length, 3, 'at the end of the drain, one token');
    await tm.clock.advance(0.011);
    await tm.runUntilIdle();
    assert.deepEqual(started.sort(), [0, 0, 1, 2]);
  });

  test('bad input is refused with the field named, and nothing is written', async () => {
    const tm = await openOnClock();
    await assert.rejects(tm.defineLimiter('api', { limit: 0, periodSeconds: 1 }), {
      name: 'InvalidOptionError',
      field: 'options.limit',
    });
    await assert.rejects(tm.defineLimiter('api', { limit: 1, periodSeconds: -1 }), {
      field: 'options.periodSeconds',
    });
    await assert.rejects(
      tm.defineLimiter('api', { limit: 1, periodSeconds: 1, burst: 1.5 }),
      InvalidOptionError,
    );
    assert.deepEqual(await tm.listLimiters(), []);
    assert.throws(() => tm.createQueue({ name: 'q', limiters: [{ name: 'api', key: 'tenant' as never }] }), {
      field: 'limiters[0].key',
    });
    assert.throws(() => tm.createQueue({ name: 'q', limiters: [{ name: 'a' }, { name: 'a' }] }), {
      field: 'limiters[1].name',
    });
    assert.throws(() => tm.createQueue({ name: 'q', limiters: 'api' as never }), { field: 'limiters' });
    assert.throws(() => tm.createQueue({ name: 'q', limiters: [{ name: 'api', weight: 2 } as never] }), {
      field: 'limiters[0].weight',
    });
    assert.throws(() => new RetryAfter(1, { drainLimiter: 5 as never }), { field: 'drainLimiter' });
    assert.throws(() => new RetryAfter(1, { drainLimiter: '' }), { field: 'drainLimiter' });
  });
});

/**
 * Count every call for tokens, and read the answer of the first `ms` late, as a process the
 * machine left unscheduled would: returns the number of calls so far.
 */
function stallFirstAnswer(tm: Tidemark, ms: number): () => number {
  const { limiters } = engineOf(tm).storage;
  let calls = 0;
  const stallFirst =
    <Args extends unknown[], Result>(take: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      const call = ++calls;
      const answer = await take(...args);
      if (call === 1) await sleep(ms);
      return answer;
    };
  limiters.grantAll = stallFirst(limiters.grantAll.bind(limiters));
  limiters.takeTokens = stallFirst(limiters.takeTokens.bind(limiters));
  return () => calls;
}

/** Run `count` jobs of a queue under `limiter` to their start; for each, the calls for tokens made by then. */
async function startAll(
  tm: Tidemark,
  limiter: string,
  count: number,
  tokenCalls: () => number,
): Promise<number[]> {
  const callsAtStart: number[] = [];
  tm.createQueue({
    name: 'stalled',
    limiters: [{ name: limiter }],
    handler: () => {
      callsAtStart.push(tokenCalls());
    },
  });
  await tm.addJobs(Array.from({ length: count }, (_, n) => ({ queue: 'stalled', data: { n } })));
  const worker = tm.worker({ concurrency: count, sweep: false, uniqueLockSweep: false });
  await worker.start();
  await waitFor('every job to start', () => callsAtStart.length === count);
  await worker.stop();
  return callsAtStart;
}
