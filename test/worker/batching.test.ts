import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { JobStatus, type Tidemark } from '../../src/index.js';
import type { AttemptOutcome } from '../../src/storage/storage.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows, deferred, fastWorker, updateJob, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/** Record every batch the worker's finishing writes send. */
function recordBatches(tm: Tidemark) {
  const batches: AttemptOutcome[][] = [];
  const storage = engineOf(tm).storage;
  const write = storage.attempts.finishAttempts.bind(storage);
  storage.attempts.finishAttempts = (outcomes: AttemptOutcome[]) => {
    batches.push([...outcomes]);
    return write(outcomes);
  };
  return batches;
}

describeEachDriver('batched finishing writes', ({ open }) => {
  test('one failed job in a batch fails alone; the others complete with their output', async () => {
    const tm = await open();
    const gate = deferred();
    tm.createQueue({
      name: 'q',
      maxAttempts: 1,
      handler: async (job) => {
        await gate.promise;
        const n = (job.data as { n: number }).n;
        if (n === 3) throw new Error('job 3 fails');
        return { n };
      },
    });
    const batches = recordBatches(tm);
    const completed: string[] = [];
    const failed: string[] = [];
    tm.on('job:completed', (e) => completed.push(e.id));
    tm.on('job:failed', (e) => failed.push(e.id));
    const ids = (await tm.addJobs(Array.from({ length: 8 }, (_, n) => ({ queue: 'q', data: { n } })))).map(
      (r) => r.id,
    );
    const worker = fastWorker(tm, { concurrency: 8 });
    await worker.start();
    await waitFor('all 8 handlers to be running', () => worker.activeCount === 8);
    gate.resolve();
    await waitFor('every outcome to be reported', () => completed.length + failed.length === 8);

    // The handlers settled together, so their outcomes went in one statement.
    const mixed = batches.find((b) => b.some((o) => !o.ok) && b.some((o) => o.ok));
    assert.ok(mixed, `no batch held both outcomes: sizes ${batches.map((b) => b.length).join(',')}`);
    assert.equal(mixed.length, 8);
    assert.deepEqual(failed, [ids[3]]);
    for (const [n, id] of ids.entries()) {
      const job = await tm.getJob(id);
      if (n === 3) {
        assert.equal(job?.status, JobStatus.FAILED);
        assert.equal(job?.error?.message, 'job 3 fails');
        assert.equal(job?.output, null);
      } else {
        assert.equal(job?.status, JobStatus.COMPLETED);
        assert.deepEqual(job?.output, { n });
        assert.equal(job?.error, null);
      }
    }
    await worker.stop();
  });

  test('a lost lock in the middle of a batch changes only that job: nothing is written for it', async () => {
    const tm = await open();
    const gate = deferred();
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        await gate.promise;
        return (job.data as { n: number }).n;
      },
    });
    const batches = recordBatches(tm);
    const lost: string[] = [];
    const completed: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    tm.on('job:completed', (e) => completed.push(e.id));
    const ids = (await tm.addJobs(Array.from({ length: 6 }, (_, n) => ({ queue: 'q', data: { n } })))).map(
      (r) => r.id,
    );
    const worker = fastWorker(tm, { concurrency: 6 });
    await worker.start();
    await waitFor('all 6 handlers to be running', () => worker.activeCount === 6);
    // Another owner took job 2 meanwhile (as recovery on another node would), without telling us.
    await updateJob(tm, ids[2], 'lock_token = gen_random_uuid()');
    const before = await tm.getJob(ids[2]);
    gate.resolve();
    await waitFor('every outcome to be reported', () => completed.length + lost.length === 6);

    const batch = batches.find((b) => b.some((o) => o.id === ids[2]));
    assert.ok(batch && batch.length > 1, 'the lost job was written in a batch with others');
    assert.deepEqual(lost, [ids[2]]);
    assert.deepEqual(await tm.getJob(ids[2]), before);
    for (const [n, id] of ids.entries()) {
      if (n === 2) continue;
      const job = await tm.getJob(id);
      assert.equal(job?.status, JobStatus.COMPLETED);
      assert.equal(job?.output, n);
    }
    await worker.stop();
  });
});

describeEachDriver('prefetch buffer', ({ open }) => {
  test('claimed jobs waiting for a slot are given back on stop, no attempt counted', async () => {
    const tm = await open();
    const started = deferred();
    let blocking = true;
    tm.createQueue({
      name: 'q',
      handler: async (job, ctx) => {
        if (blocking && (job.data as { block?: boolean }).block) {
          started.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        }
      },
    });
    const blocker = await tm.addJob({ queue: 'q', data: { block: true }, priority: 1 });
    const ids = (await tm.addJobs(Array.from({ length: 10 }, (_, n) => ({ queue: 'q', data: { n } })))).map(
      (r) => r.id,
    );
    const worker = fastWorker(tm, { concurrency: 1, prefetch: 4, shutdownTimeoutSeconds: 0.2 });
    await worker.start();
    await started.promise;
    // The one slot is busy; four more jobs are claimed and held for it.
    await waitFor(
      'the buffer to hold four jobs',
      async () => (await countRows(tm, 'jobs', "status = 'active'")) === 5,
    );
    assert.equal(worker.activeCount, 1);
    await worker.stop();
    assert.equal(await countRows(tm, 'jobs', "status = 'active' or lock_token is not null"), 0);
    for (const id of [blocker.id, ...ids]) {
      const job = await tm.getJob(id);
      assert.equal(job?.status, JobStatus.PENDING);
      assert.equal(job?.attempts, 0);
    }
    // The next worker takes them at once.
    blocking = false;
    const next = fastWorker(tm, { concurrency: 4 });
    await next.start();
    for (const id of ids) await waitForStatus(tm, id, JobStatus.COMPLETED);
    await next.stop();
  });

  test('a held job cancelled before it starts is dropped without running', async () => {
    const tm = await open();
    const gate = deferred();
    const ran: number[] = [];
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        const n = (job.data as { n: number }).n;
        ran.push(n);
        if (n === 0) await gate.promise;
      },
    });
    const lost: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    const ids = (await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'q', data: { n } })))).map(
      (r) => r.id,
    );
    const worker = fastWorker(tm, { concurrency: 1, prefetch: 2 });
    await worker.start();
    await waitFor(
      'the buffer to hold jobs 1 and 2',
      async () => (await countRows(tm, 'jobs', "status = 'active'")) === 3,
    );
    await tm.cancelJob(ids[1]);
    await waitFor('the held job to be dropped', () => lost.includes(ids[1]));
    gate.resolve();
    await waitForStatus(tm, ids[2], JobStatus.COMPLETED);
    assert.deepEqual(ran, [0, 2]);
    assert.equal((await tm.getJob(ids[1]))?.status, JobStatus.CANCELLED);
    await worker.stop();
  });

  test('heartbeats extend the locks of held jobs too', async () => {
    const tm = await open();
    const gate = deferred();
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        if ((job.data as { n: number }).n === 0) await gate.promise;
      },
    });
    await tm.addJobs(Array.from({ length: 3 }, (_, n) => ({ queue: 'q', data: { n } })));
    const worker = fastWorker(tm, { concurrency: 1, prefetch: 2, lockSeconds: 1.5 });
    await worker.start();
    await waitFor(
      'the buffer to hold two jobs',
      async () => (await countRows(tm, 'jobs', "status = 'active'")) === 3,
    );
    const first = await rawLocks(tm);
    await waitFor('a heartbeat to extend every lock', async () => {
      const now = await rawLocks(tm);
      return now.length === 3 && now.every((lock, i) => lock > first[i]);
    });
    gate.resolve();
    await worker.stop();
  });
});

async function rawLocks(tm: Parameters<typeof countRows>[0]): Promise<number[]> {
  const result = await runnerOf(engineOf(tm).storage).driver.query<{ until: Date }>(
    `select locked_until as until from "${tm.schema}".jobs where status = 'active' order by id`,
  );
  return result.rows.map((r) => new Date(r.until).getTime());
}
