import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, QueueNotFoundError } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

/** Counts handlers running at once per key, and the most seen per key. */
function keyGauge() {
  const now = new Map<string, number>();
  const max = new Map<string, number>();
  let done = 0;
  return {
    max,
    get done() {
      return done;
    },
    async around<T>(key: string, fn: () => Promise<T>): Promise<T> {
      const running = (now.get(key) ?? 0) + 1;
      now.set(key, running);
      max.set(key, Math.max(max.get(key) ?? 0, running));
      try {
        return await fn();
      } finally {
        now.set(key, (now.get(key) ?? 1) - 1);
        done++;
      }
    },
  };
}

describeEachDriver('flow control: concurrency by key', ({ open }) => {
  test('no key runs more jobs at once than its limit, over several workers', async () => {
    const tm = await open();
    const g = keyGauge();
    tm.createQueue({
      name: 'q',
      keys: { concurrency: { default: 2, tiers: { pro: 4 } } },
      handler: (job) => g.around(job.key ?? 'none', () => sleep(5)),
    });
    const jobs = [
      ...Array.from({ length: 30 }, () => ({ queue: 'q', key: 'a' })),
      ...Array.from({ length: 30 }, () => ({ queue: 'q', key: 'b', tier: 'pro' })),
      ...Array.from({ length: 10 }, () => ({ queue: 'q' })),
    ];
    await tm.addJobs(jobs);
    await Promise.all([
      fastWorker(tm, { concurrency: 8 }).start(),
      fastWorker(tm, { concurrency: 8 }).start(),
    ]);
    await waitFor('every job to run', () => g.done === 70, { timeoutMs: 30_000 });
    assert.equal(g.max.get('a'), 2);
    assert.equal(g.max.get('b'), 4);
    assert.ok((g.max.get('none') ?? 0) >= 2, 'jobs without a key are not limited');
  });

  test("a written outcome of a keyed job lets the worker claim the key's next job at once, not at its next poll", async () => {
    const tm = await open();
    let done = 0;
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 2 },
      handler: () => {
        done++;
      },
    });
    await tm.addJobs(Array.from({ length: 60 }, () => ({ queue: 'q', key: 'k' })));
    // A poll far longer than the test: each claim after the first must come from a finish.
    await fastWorker(tm, { concurrency: 4, pollIntervalSeconds: 60 }).start();
    await waitFor('every job to run', () => done === 60, { timeoutMs: 10_000 });
  });

  test("a key at its limit never blocks another key's job or a job without a key", async () => {
    const tm = await open();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 1 },
      handler: async (job) => {
        started.push(job.key ?? 'none');
        if (job.key === 'busy') await held;
      },
    });
    await tm.addJobs(Array.from({ length: 2_000 }, () => ({ queue: 'q', key: 'busy' })));
    const worker = fastWorker(tm, { concurrency: 4 });
    await worker.start();
    await waitFor('the busy key to start', () => started.includes('busy'));
    await tm.addJob({ queue: 'q', key: 'other' });
    await tm.addJob({ queue: 'q' });
    await waitFor(
      'the other key and the unkeyed job to start',
      () => started.includes('other') && started.includes('none'),
    );
    assert.equal(started.filter((key) => key === 'busy').length, 1);
    release();
  });

  test("fifo order starts a key's jobs in the order they were added, one after another", async () => {
    const tm = await open();
    const order: number[] = [];
    let running = 0;
    let overlap = false;
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 1, order: 'fifo' },
      handler: async (job) => {
        running++;
        if (running > 1) overlap = true;
        order.push((job.data as { n: number }).n);
        await sleep(1);
        running--;
      },
    });
    // Priorities would reorder them under the default order.
    await tm.addJobs(
      Array.from({ length: 20 }, (_, n) => ({ queue: 'q', key: 'k', data: { n }, priority: n % 3 })),
    );
    await Promise.all([
      fastWorker(tm, { concurrency: 4 }).start(),
      fastWorker(tm, { concurrency: 4 }).start(),
    ]);
    await waitFor('every job to run', () => order.length === 20);
    assert.deepEqual(
      order,
      Array.from({ length: 20 }, (_, n) => n),
    );
    assert.equal(overlap, false);
  });

  test('a global limit bounds every job of the queue, with or without a key', async () => {
    const tm = await open();
    let running = 0;
    let most = 0;
    let done = 0;
    tm.createQueue({
      name: 'q',
      globalConcurrency: 3,
      handler: async () => {
        running++;
        most = Math.max(most, running);
        await sleep(5);
        running--;
        done++;
      },
    });
    await tm.addJobs(
      Array.from({ length: 40 }, (_, n) => ({ queue: 'q', key: n % 2 ? `k${n % 5}` : undefined })),
    );
    await Promise.all([
      fastWorker(tm, { concurrency: 5 }).start(),
      fastWorker(tm, { concurrency: 5 }).start(),
    ]);
    await waitFor('every job to run', () => done === 40, { timeoutMs: 30_000 });
    assert.equal(most, 3);
  });

  test('overrides, pauses and listKeys', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', keys: { concurrency: 2, fairness: 'round-robin' } });
    await tm.addJobs([
      ...Array.from({ length: 3 }, () => ({ queue: 'q', key: 'a' })),
      { queue: 'q', key: 'b' },
    ]);
    await tm.setKeyLimit('q', 'a', { concurrency: 5 });
    await tm.pauseKey('q', 'b');
    await tm.pauseKey('q', 'idle');
    let keys = await tm.listKeys('q');
    assert.deepEqual(
      keys.map(({ key, active, pending, limit, paused }) => ({ key, active, pending, limit, paused })),
      [
        { key: 'a', active: 0, pending: 3, limit: 5, paused: false },
        { key: 'b', active: 0, pending: 1, limit: 2, paused: true },
        { key: 'idle', active: 0, pending: 0, limit: 2, paused: true },
      ],
    );
    assert.deepEqual(
      (await tm.listKeys('q', { blocked: true })).map((row) => row.key),
      ['b'],
    );
    assert.deepEqual(
      (await tm.listKeys('q', { after: 'a', limit: 1 })).map((row) => row.key),
      ['b'],
    );
    await tm.resumeKey('q', 'idle');
    await tm.setKeyLimit('q', 'a', null);
    keys = await tm.listKeys('q');
    assert.deepEqual(
      keys.map(({ key, limit }) => ({ key, limit })),
      [
        { key: 'a', limit: 2 },
        { key: 'b', limit: 2 },
      ],
    );
  });

  test('a paused key starts nothing until resumed; other keys run', async () => {
    const tm = await open();
    const ran: string[] = [];
    tm.createQueue({ name: 'q', keys: { concurrency: 3 }, handler: (job) => void ran.push(job.key ?? '') });
    await tm.pauseKey('q', 'held');
    await tm.addJobs([
      { queue: 'q', key: 'held' },
      { queue: 'q', key: 'free' },
    ]);
    await fastWorker(tm, { concurrency: 2 }).start();
    await waitFor('the free key to run', () => ran.includes('free'));
    await sleep(50);
    assert.deepEqual(ran, ['free']);
    await tm.resumeKey('q', 'held');
    await waitFor('the held key to run', () => ran.includes('held'));
  });

  test('bad input names the field and writes nothing', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', keys: { concurrency: { default: 1, tiers: { pro: 3 } } } });
    tm.createQueue({ name: 'plain' });
    const refused = async (fn: () => Promise<unknown>, field: string) => {
      await assert.rejects(
        fn,
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
      );
    };
    await refused(() => tm.addJob({ queue: 'q', key: '' }), 'key');
    await refused(() => tm.addJob({ queue: 'q', key: 'x'.repeat(513) }), 'key');
    await refused(() => tm.addJob({ queue: 'q', key: 7 as unknown as string }), 'key');
    await refused(() => tm.addJob({ queue: 'q', key: 'a', tier: 'gold' }), 'tier');
    await refused(() => tm.addJob({ queue: 'plain', key: 'a', tier: 'pro' }), 'tier');
    await refused(
      () =>
        tm.addJobs([
          { queue: 'q', key: 'a' },
          { queue: 'q', key: 'a', tier: 'gold' },
        ]),
      'jobs[1].tier',
    );
    await refused(() => tm.setKeyLimit('q', 'a', { concurrency: 0 }), 'limit.concurrency');
    await refused(() => tm.setKeyLimit('q', 'a', { concurrency: 1.5 }), 'limit.concurrency');
    await assert.rejects(() => tm.setKeyLimit('nope', 'a', { concurrency: 1 }), QueueNotFoundError);
    assert.throws(
      () => tm.createQueue({ name: 'r', keys: { concurrency: 0 } }),
      (e: unknown) => e instanceof InvalidOptionError && e.field === 'keys.concurrency',
    );
    assert.throws(
      () => tm.createQueue({ name: 'r', keys: { concurrency: { default: 1, tiers: { pro: -1 } } } }),
      (e: unknown) => e instanceof InvalidOptionError && e.field === 'keys.concurrency.tiers.pro',
    );
    assert.throws(
      () => tm.createQueue({ name: 'r', keys: { concurrency: 1, order: 'lifo' as 'fifo' } }),
      (e: unknown) => e instanceof InvalidOptionError && e.field === 'keys.order',
    );
    assert.throws(
      () => tm.createQueue({ name: 'r', keys: { concurrency: 1, fairness: { weights: { a: 0 } } } }),
      (e: unknown) => e instanceof InvalidOptionError && e.field === 'keys.fairness.weights.a',
    );
    assert.throws(
      () => tm.createQueue({ name: 'r', globalConcurrency: 0 }),
      (e: unknown) => e instanceof InvalidOptionError && e.field === 'globalConcurrency',
    );
    assert.deepEqual(await tm.listKeys('q'), []);
    assert.deepEqual(await tm.listKeys('plain'), []);
  });

  test("a cancelled job holds its key's slot until its handler returns", async () => {
    const tm = await open();
    const events: string[] = [];
    tm.createQueue({
      name: 'q',
      keys: { concurrency: 1 },
      handler: async (job, ctx) => {
        const name = (job.data as { name: string }).name;
        events.push(`start ${name}`);
        if (name === 'first') {
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
          // A handler that takes a while to wind down after the cancel.
          await sleep(150);
        }
        events.push(`end ${name}`);
      },
    });
    const { id } = await tm.addJob({ queue: 'q', key: 'k', data: { name: 'first' } });
    await tm.addJob({ queue: 'q', key: 'k', data: { name: 'second' } });
    await fastWorker(tm, { concurrency: 2 }).start();
    await waitFor('the first job to start', () => events.includes('start first'));
    await tm.cancelJob(id);
    await waitFor('the second job to run', () => events.includes('end second'));
    assert.deepEqual(events, ['start first', 'end first', 'start second', 'end second']);
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'cancelled');
    assert.equal(job?.lockedBy, null, 'the lock is cleared once the handler returned');
  });

  test('a job keeps its key and tier, as read back', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', keys: { concurrency: { default: 1, tiers: { pro: 3 } } } });
    const { id } = await tm.addJob({ queue: 'q', key: 'tenant:acme', tier: 'pro' });
    const job = await tm.getJob(id);
    assert.equal(job?.key, 'tenant:acme');
    assert.equal(job?.tier, 'pro');
    const plain = await tm.getJob((await tm.addJob({ queue: 'q' })).id);
    assert.equal(plain?.key, null);
  });
});
