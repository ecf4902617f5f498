import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BatchOutcome, InvalidOptionError, type Job, silentLogger } from '../../src/index.js';
import type { TestTidemark } from '../../src/testing/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

type Item = { n: number; account?: string };

/** Each job's status, attempts and error code, by its data's n. */
async function statesOf(tm: TestTidemark, queue: string) {
  const jobs = await tm.jobs(queue);
  return jobs
    .map((job) => ({
      n: (job.data as Item).n,
      status: job.status,
      attempts: job.attempts,
      output: job.output,
      code: job.error?.code ?? job.error?.name ?? null,
    }))
    .sort((a, b) => a.n - b.n);
}

describeEachDriver('batch handlers', ({ open, openOnClock }) => {
  test('the handler takes up to maxSize jobs at once and gives each its output', async () => {
    const tm = await openOnClock();
    const sizes: number[] = [];
    tm.createQueue({
      name: 'rows',
      batch: { maxSize: 10, maxWaitSeconds: 5 },
      handler: (jobs: Job<Item>[]) => {
        sizes.push(jobs.length);
        return jobs.map((job) => ({ id: job.id, output: job.data.n * 2 }));
      },
    });
    await tm.addJobs(Array.from({ length: 25 }, (_, n) => ({ queue: 'rows', data: { n } })));
    await tm.runUntilIdle();
    assert.deepEqual(
      sizes.sort((a, b) => b - a),
      [10, 10, 5],
    );
    const states = await statesOf(tm, 'rows');
    assert.ok(states.every((s) => s.status === 'completed' && s.output === s.n * 2 && s.attempts === 1));
  });

  test('an error fails its job alone; a job left out fails with BatchOutcomeError; both retry as single jobs', async () => {
    const tm = await openOnClock();
    let calls = 0;
    tm.createQueue({
      name: 'rows',
      maxAttempts: 2,
      backoff: { delaySeconds: 10, jitter: false },
      batch: { maxSize: 10, maxWaitSeconds: 0 },
      handler: (jobs: Job<Item>[]): BatchOutcome[] => {
        calls++;
        return jobs.flatMap((job): BatchOutcome[] => {
          if (calls === 1 && job.data.n === 1) return [{ id: job.id, error: new Error('row 1 is bad') }];
          if (calls === 1 && job.data.n === 2) return [];
          return [{ id: job.id, output: 'ok' }];
        });
      },
    });
    await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'rows', data: { n } })));
    await tm.runUntilIdle();
    const first = await statesOf(tm, 'rows');
    assert.deepEqual(
      first.map((s) => [s.n, s.status, s.code]),
      [
        [0, 'completed', null],
        [1, 'retry', 'Error'],
        [2, 'retry', 'BATCH_OUTCOME'],
      ],
    );
    const [left] = (await tm.jobs('rows')).filter((job) => (job.data as Item).n === 2);
    assert.match(left.error?.message ?? '', /the batch handler gave no outcome for job/);
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal(calls, 2, 'the two retries ran in one batch');
    assert.deepEqual(
      (await statesOf(tm, 'rows')).map((s) => [s.status, s.attempts]),
      [
        ['completed', 1],
        ['completed', 2],
        ['completed', 2],
      ],
    );
  });

  test('a throw or a value that is no array of outcomes fails every job of the batch', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'throws',
      maxAttempts: 1,
      batch: { maxSize: 5, maxWaitSeconds: 0 },
      handler: () => {
        throw new Error('the bulk insert failed');
      },
    });
    tm.createQueue({
      name: 'no-array',
      maxAttempts: 1,
      batch: { maxSize: 5, maxWaitSeconds: 0 },
      handler: async () => ({ done: true }) as unknown as BatchOutcome[],
    });
    for (const queue of ['throws', 'no-array']) {
      await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue, data: { n } })));
    }
    await tm.runUntilIdle();
    const thrown = await tm.jobs('throws');
    assert.deepEqual(
      thrown.map((job) => [job.status, job.error?.message]),
      Array(3).fill(['failed', 'the bulk insert failed']),
    );
    const refused = await statesOf(tm, 'no-array');
    assert.deepEqual(
      refused.map((s) => [s.status, s.code]),
      Array(3).fill(['failed', 'BATCH_OUTCOME']),
    );
  });

  test('with key, a batch never mixes keys; in a keyed queue each job of a batch takes its key’s slot', async () => {
    const tm = await openOnClock();
    const batches: string[][] = [];
    tm.createQueue({
      name: 'by-account',
      batch: { maxSize: 10, maxWaitSeconds: 0, key: (data) => (data as Item).account ?? '' },
      handler: (jobs: Job<Item>[]) => {
        batches.push(jobs.map((job) => job.data.account ?? ''));
        return jobs.map((job) => ({ id: job.id }));
      },
    });
    tm.createQueue({
      name: 'keyed',
      keys: { concurrency: 2 },
      batch: { maxSize: 10, maxWaitSeconds: 0, key: true },
      handler: (jobs: Job<Item>[]) => {
        batches.push(jobs.map((job) => `keyed:${job.key}`));
        return jobs.map((job) => ({ id: job.id }));
      },
    });
    await tm.addJobs(
      Array.from({ length: 12 }, (_, n) => ({
        queue: 'by-account',
        data: { n, account: n % 3 === 0 ? 'a' : 'b' },
      })),
    );
    await tm.addJobs(
      Array.from({ length: 6 }, (_, n) => ({ queue: 'keyed', data: { n }, key: `k${n % 2}` })),
    );
    await tm.runUntilIdle();
    for (const batch of batches) assert.equal(new Set(batch).size, 1, `one key per batch: ${batch}`);
    const keyed = batches.filter((b) => b[0].startsWith('keyed:'));
    assert.ok(
      keyed.every((b) => b.length <= 2),
      `a key at concurrency 2 runs at most 2 jobs at once: ${JSON.stringify(keyed)}`,
    );
    assert.equal(keyed.flat().length, 6);
    assert.equal(batches.filter((b) => !b[0].startsWith('keyed:')).flat().length, 12);
  });

  test('a partial batch waits maxWaitSeconds to fill; a full one runs at once', async () => {
    const tm = await open({ logger: silentLogger });
    const runs: { queue: string; size: number; at: number }[] = [];
    // Windows wide enough that a loaded machine cannot blur them: the partial batch waits
    // 1.5 s for its second job, which comes 0.1 s after the first; the full batch would wait
    // 60 s if it waited at all.
    for (const [name, maxWaitSeconds] of [
      ['trickle', 1.5],
      ['full', 60],
    ] as const) {
      tm.createQueue({
        name,
        batch: { maxSize: 4, maxWaitSeconds },
        handler: (jobs) => {
          runs.push({ queue: name, size: jobs.length, at: Date.now() });
          return jobs.map((job) => ({ id: job.id }));
        },
      });
    }
    // Each add wakes the claim by a notification, so the poll is only a fallback: a fast one
    // would run a claim statement every few milliseconds through the wait, each finding nothing.
    const worker = tm.worker({ pollIntervalSeconds: 0.25, sweep: false, uniqueLockSweep: false });
    await worker.start();
    const added = Date.now();
    await tm.addJob({ queue: 'trickle', data: { n: 0 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await tm.addJob({ queue: 'trickle', data: { n: 1 } });
    await waitFor('the partial batch to run', () => runs.length === 1);
    assert.equal(runs[0].size, 2, 'the second job joined the first one’s batch');
    assert.ok(runs[0].at - added >= 1500, `ran ${runs[0].at - added} ms after the first add`);
    const full = Date.now();
    await tm.addJobs(Array.from({ length: 4 }, (_, n) => ({ queue: 'full', data: { n } })));
    await waitFor('the full batch to run', () => runs.length === 2);
    await worker.stop();
    assert.deepEqual([runs[1].queue, runs[1].size], ['full', 4]);
    assert.ok(runs[1].at - full < 15_000, `a full batch waits for nothing (${runs[1].at - full} ms)`);
  });

  test('a timeout fails every job of the batch; a cancel drops its job alone', async () => {
    const tm = await open({ logger: silentLogger });
    let release: () => void = () => {};
    let started = false;
    let heardOfCancel: (id: string) => boolean = () => false;
    const seen: boolean[] = [];
    tm.createQueue({
      name: 'slow',
      maxAttempts: 1,
      timeoutSeconds: 0.2,
      batch: { maxSize: 3, maxWaitSeconds: 0 },
      handler: (jobs, ctx) =>
        new Promise<BatchOutcome[]>((resolve) =>
          ctx.signal.addEventListener('abort', () => resolve([])),
        ).then(() => jobs.map((job) => ({ id: job.id }))),
    });
    tm.createQueue({
      name: 'cancelled',
      batch: { maxSize: 3, maxWaitSeconds: 0 },
      handler: async (jobs, ctx) => {
        heardOfCancel = (id) => ctx.isCancelled(id);
        await new Promise<void>((resolve) => {
          release = resolve;
          started = true;
        });
        for (const job of jobs) seen.push(ctx.isCancelled(job.id));
        return jobs.map((job) => ({ id: job.id, output: 'done' }));
      },
    });
    const slow = await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'slow', data: { n } })));
    const ids = await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'cancelled', data: { n } })));
    const worker = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await worker.start();
    await waitFor('the cancelled queue’s batch to start', () => started);
    await tm.cancelJob(ids[1].id);
    // The worker hears of a cancel by a notification, after cancelJob has returned.
    await waitFor('the cancel to reach the batch', () => heardOfCancel(ids[1].id));
    release();
    await waitFor('the batch handler to return', () => seen.length === 3);
    await waitFor('every job to finish', async () => {
      const jobs = await Promise.all([...slow, ...ids].map((r) => tm.getJob(r.id)));
      return jobs.every((job) => job && ['completed', 'failed', 'cancelled'].includes(job.status));
    });
    await worker.stop();
    const timedOut = await Promise.all(slow.map((r) => tm.getJob(r.id)));
    assert.deepEqual(
      timedOut.map((job) => [job?.status, job?.error?.code]),
      Array(3).fill(['failed', 'JOB_TIMEOUT']),
    );
    const cancelled = await Promise.all(ids.map((r) => tm.getJob(r.id)));
    assert.deepEqual(
      cancelled.map((job) => [job?.status, job?.output ?? null]),
      [
        ['completed', 'done'],
        ['cancelled', null],
        ['completed', 'done'],
      ],
    );
    assert.deepEqual(seen, [false, true, false], 'ctx.isCancelled names the cancelled job');
  });

  test('a job cancelled while its batch waits for a slot leaves the other batches to run', async () => {
    const tm = await open({ logger: silentLogger });
    let release: () => void = () => {};
    let first: string | null = null;
    const ran: string[] = [];
    tm.createQueue({
      name: 'rows',
      batch: { maxSize: 1, maxWaitSeconds: 0 },
      handler: async (jobs: Job<Item>[]) => {
        // The first batch to run holds the worker's one slot until the test releases it.
        if (first === null) {
          first = jobs[0].id;
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
        ran.push(...jobs.map((job) => job.id));
        return jobs.map((job) => ({ id: job.id, output: 'ok', error: undefined }));
      },
    });
    const added = await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'rows', data: { n } })));
    const worker = tm.worker({
      concurrency: 1,
      pollIntervalSeconds: 0.02,
      sweep: false,
      uniqueLockSweep: false,
    });
    await worker.start();
    // One slot, two claimed (a claim takes a batch for each slot and one more): one batch runs,
    // the other waits ready for the slot.
    const claimed = await waitFor('two jobs to be claimed, one running', async () => {
      const jobs = await Promise.all(added.map((r) => tm.getJob(r.id)));
      const active = jobs.filter((job) => job?.status === 'active').map((job) => job?.id as string);
      return active.length === 2 && first !== null ? active : null;
    });
    const waiting = claimed.find((id) => id !== first) as string;
    const dropped: string[] = [];
    tm.on('job:lost', ({ id }) => dropped.push(id));
    await tm.cancelJob(waiting);
    // The worker hears of the cancel and drops the job from its ready batch, before a slot frees.
    await waitFor('the worker to drop the cancelled job', () => dropped.includes(waiting));
    release();
    const others = added.map((r) => r.id).filter((id) => id !== waiting);
    await waitFor('the other jobs to complete', async () => {
      const jobs = await Promise.all(others.map((id) => tm.getJob(id)));
      return jobs.every((job) => job?.status === 'completed');
    });
    await worker.stop();
    assert.deepEqual(ran.sort(), [...others].sort());
    assert.equal((await tm.getJob(waiting))?.status, 'cancelled');
    const outputs = await Promise.all(others.map(async (id) => (await tm.getJob(id))?.output));
    assert.deepEqual(outputs, ['ok', 'ok'], 'an error: undefined is no error');
  });

  test('a worker stopped mid-batch gives its jobs back; another worker completes every one', async () => {
    const tm = await open({ logger: silentLogger });
    const done = new Map<string, number>();
    let hang = true;
    tm.createQueue({
      name: 'rows',
      batch: { maxSize: 5, maxWaitSeconds: 0 },
      handler: async (jobs, ctx) => {
        if (hang) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        for (const job of jobs) done.set(job.id, (done.get(job.id) ?? 0) + 1);
        return jobs.map((job) => ({ id: job.id, output: 'ok' }));
      },
    });
    const added = await tm.addJobs(Array.from({ length: 12 }, (_, n) => ({ queue: 'rows', data: { n } })));
    const first = tm.worker({
      concurrency: 2,
      pollIntervalSeconds: 0.02,
      sweep: false,
      uniqueLockSweep: false,
    });
    await first.start();
    await waitFor('two batches to start', async () => {
      const jobs = await Promise.all(added.map((r) => tm.getJob(r.id)));
      return jobs.filter((job) => job?.status === 'active').length >= 10;
    });
    await first.stop({ timeoutSeconds: 0.1 });
    const back = await Promise.all(added.map((r) => tm.getJob(r.id)));
    assert.ok(
      back.every((job) => job?.status === 'pending' && job.attempts === 0),
      `given back as they were: ${back.map((job) => `${job?.status}/${job?.attempts}`).join(', ')}`,
    );
    hang = false;
    done.clear();
    const second = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await second.start();
    await waitFor('every job to complete', async () => {
      const jobs = await Promise.all(added.map((r) => tm.getJob(r.id)));
      return jobs.every((job) => job?.status === 'completed');
    });
    await second.stop();
    assert.deepEqual([...done.values()], Array(12).fill(1), 'each job ran once in the second worker');
  });

  test('a batch key that throws fails its job without running it; bad batch options are refused by name', async () => {
    const tm = await openOnClock();
    const ran: number[] = [];
    tm.createQueue({
      name: 'keyed',
      batch: {
        maxSize: 5,
        maxWaitSeconds: 0,
        key: (data) => {
          if ((data as Item).n === 1) throw new Error('no account');
          return 'a';
        },
      },
      handler: (jobs: Job<Item>[]) => {
        ran.push(...jobs.map((job) => job.data.n));
        return jobs.map((job) => ({ id: job.id }));
      },
    });
    await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'keyed', data: { n } })));
    await tm.runUntilIdle();
    assert.deepEqual(ran.sort(), [0, 2]);
    assert.deepEqual(
      (await statesOf(tm, 'keyed')).map((s) => [s.status, s.code, s.attempts]),
      [
        ['completed', null, 1],
        ['failed', 'BATCH_KEY', 1],
        ['completed', null, 1],
      ],
    );
    const cases: [unknown, string][] = [
      [{ maxSize: 0, maxWaitSeconds: 1 }, 'batch.maxSize'],
      [{ maxSize: 1001, maxWaitSeconds: 1 }, 'batch.maxSize'],
      [{ maxSize: 5, maxWaitSeconds: -1 }, 'batch.maxWaitSeconds'],
      [{ maxSize: 5 }, 'batch.maxWaitSeconds'],
      [{ maxSize: 5, maxWaitSeconds: 1, key: 'account' }, 'batch.key'],
      [{ maxSize: 5, maxWaitSeconds: 1, size: 3 }, 'batch.size'],
      ['big', 'batch'],
    ];
    assert.throws(
      () =>
        tm.createQueue({ name: 'bad', batch: { maxSize: 2, maxWaitSeconds: 0 }, limiters: [{ name: 'x' }] }),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'batch',
      'a batch waits to fill; a granted job must start at once',
    );
    for (const [batch, field] of cases) {
      assert.throws(
        () => tm.createQueue({ name: 'bad', batch } as never),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        `${JSON.stringify(batch)} names ${field}`,
      );
    }
    assert.throws(
      () => tm.defineQueue({ name: 'typed', batch: { maxSize: 2, maxWaitSeconds: 0 } } as never),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'batch',
    );
    assert.equal(
      (await tm.listQueues()).some((q) => q.name === 'bad' || q.name === 'typed'),
      false,
    );
  });
});
