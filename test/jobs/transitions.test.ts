import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobFailedError, JobStatus, NonRetryableError } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker, updateJob, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

// Clock readings in JS and in the database come from the same machine; allow for rounding
// to milliseconds on both sides.
const SLACK_MS = 5;

describeEachDriver('job status transitions', ({ open }) => {
  test('pending → active → completed, with the attempt recorded', async () => {
    const tm = await open();
    let seenWhileRunning: { status: string; lockedBy: string | null; attempts: number } | null = null;
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        const row = await tm.getJob(job.id);
        seenWhileRunning = row && { status: row.status, lockedBy: row.lockedBy, attempts: row.attempts };
        return { doubled: (job.data as { n: number }).n * 2 };
      },
    });
    const { id } = await tm.addJob({ queue: 'q', data: { n: 21 } });
    assert.equal((await tm.getJob(id))?.status, JobStatus.PENDING);
    const worker = fastWorker(tm, { id: 'w-1' });
    await worker.start();
    assert.deepEqual(await tm.result(id), { doubled: 42 });
    assert.deepEqual(seenWhileRunning, { status: JobStatus.ACTIVE, lockedBy: 'w-1', attempts: 1 });
    const job = await tm.getJob(id);
    assert.ok(job);
    assert.equal(job.status, JobStatus.COMPLETED);
    assert.equal(job.attempts, 1);
    assert.ok(job.startedAt instanceof Date);
    assert.ok(job.finishedAt instanceof Date && job.finishedAt >= (job.startedAt as Date));
    assert.equal(job.lockedBy, null);
    assert.equal(job.lockedUntil, null);
    assert.equal(job.error, null);
  });

  test('a failed attempt goes to retry with run_at inside the jittered backoff window', async () => {
    const tm = await open();
    let thrownAt = 0;
    tm.createQueue({
      name: 'flaky',
      maxAttempts: 3,
      backoff: { delaySeconds: 100, factor: 2 },
      handler: () => {
        thrownAt = Date.now();
        throw new Error('boom');
      },
    });
    const failed: { willRetry: boolean }[] = [];
    tm.on('job:failed', (e) => failed.push(e));
    const { id } = await tm.addJob({ queue: 'flaky' });
    await fastWorker(tm).start();
    await waitFor('the first failure', () => failed.length === 1);
    const seenAt = Date.now();
    const job = await tm.getJob(id);
    assert.ok(job);
    assert.equal(job.status, JobStatus.RETRY);
    assert.equal(job.attempts, 1);
    assert.equal(job.error?.message, 'boom');
    assert.equal(job.finishedAt, null);
    assert.equal(failed[0].willRetry, true);
    // jitter spreads the first delay (100 s) over [50 s, 100 s] after the failing write
    const runAt = job.runAt.getTime();
    assert.ok(runAt >= thrownAt + 50_000 - SLACK_MS, `run_at ${runAt - thrownAt} ms after the throw`);
    assert.ok(runAt <= seenAt + 100_000 + SLACK_MS, `run_at ${runAt - seenAt} ms after the event`);
  });

  test('backoff grows by the factor per attempt and is capped; spent attempts end failed', async () => {
    const tm = await open();
    const thrown: number[] = [];
    tm.createQueue({
      name: 'flaky',
      maxAttempts: 4,
      backoff: { delaySeconds: 10, factor: 3, maxDelaySeconds: 50, jitter: false },
      handler: (job) => {
        thrown.push(Date.now());
        throw new Error(`attempt ${job.attempts}`);
      },
    });
    const { id } = await tm.addJob({ queue: 'flaky' });
    await fastWorker(tm).start();
    // exact delays: 10 s, 30 s, then 90 s capped to 50 s
    for (const [attempt, delaySeconds] of [
      [1, 10],
      [2, 30],
      [3, 50],
    ]) {
      const job = await waitFor(`attempt ${attempt} to fail`, async () => {
        const row = await tm.getJob(id);
        return row?.status === JobStatus.RETRY && row.attempts === attempt ? row : null;
      });
      const seenAt = Date.now();
      const runAt = job.runAt.getTime();
      const at = thrown[attempt - 1];
      assert.ok(runAt >= at + delaySeconds * 1000 - SLACK_MS, `attempt ${attempt}: ${runAt - at} ms`);
      assert.ok(runAt <= seenAt + delaySeconds * 1000 + SLACK_MS, `attempt ${attempt}: ${runAt - seenAt} ms`);
      // skip the wait: make the retry due now
      await updateJob(tm, id, 'run_at = now()');
    }
    const job = await waitForStatus(tm, id, JobStatus.FAILED);
    assert.equal(job.attempts, 4);
    assert.equal(job.error?.message, 'attempt 4');
    assert.ok(job.finishedAt instanceof Date);
    assert.equal(thrown.length, 4);
    await assert.rejects(
      tm.result(id),
      (error: unknown) => error instanceof JobFailedError && error.details.status === 'failed',
    );
  });

  test('retry → pending by the maintenance tick → active → completed', async () => {
    const tm = await open();
    let calls = 0;
    tm.createQueue({
      name: 'flaky',
      backoff: { delaySeconds: 3_600 },
      handler: () => {
        calls++;
        if (calls === 1) throw new Error('first time');
        return 'second time';
      },
    });
    tm.createQueue({ name: 'other', handler: () => null });
    const { id } = await tm.addJob({ queue: 'flaky' });
    const first = fastWorker(tm, { queues: ['flaky'] });
    await first.start();
    await waitForStatus(tm, id, JobStatus.RETRY);
    await first.stop();
    await updateJob(tm, id, `run_at = now() - interval '1 second'`);
    // a worker that does not handle 'flaky' still runs the tick, which promotes the due retry
    const ticker = fastWorker(tm, { queues: ['other'] });
    await ticker.start();
    const promoted = await waitForStatus(tm, id, JobStatus.PENDING);
    assert.equal(promoted.attempts, 1);
    await ticker.stop();
    await fastWorker(tm, { queues: ['flaky'] }).start();
    assert.equal(await tm.result(id), 'second time');
    assert.equal((await tm.getJob(id))?.attempts, 2);
  });

  test('NonRetryableError fails the job at once, attempts left or not', async () => {
    const tm = await open();
    let calls = 0;
    tm.createQueue({
      name: 'q',
      maxAttempts: 5,
      backoff: { delaySeconds: 0 },
      handler: () => {
        calls++;
        throw new NonRetryableError('bad input');
      },
    });
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    const job = await waitForStatus(tm, id, JobStatus.FAILED);
    assert.equal(job.attempts, 1);
    assert.equal(job.error?.name, 'NonRetryableError');
    assert.equal(job.error?.message, 'bad input');
    assert.equal(calls, 1);
  });

  test('delayed jobs are not claimed before their run time', async () => {
    const tm = await open();
    const ran: string[] = [];
    tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.id) });
    const later = await tm.addJob({ queue: 'q', runAt: new Date(Date.now() + 3_600_000) });
    const delayed = await tm.addJob({ queue: 'q', delaySeconds: 3_600 });
    const soon = await tm.addJob({ queue: 'q', delaySeconds: 0.3 });
    const now = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await waitForStatus(tm, now.id, JobStatus.COMPLETED);
    const done = await waitForStatus(tm, soon.id, JobStatus.COMPLETED);
    // claimed no earlier than its run time (both database clocks)
    assert.ok((done.startedAt as Date).getTime() >= done.runAt.getTime());
    for (const id of [later.id, delayed.id]) {
      const job = await tm.getJob(id);
      assert.equal(job?.status, JobStatus.PENDING);
      assert.equal(job?.attempts, 0);
      assert.equal(job?.startedAt, null);
    }
    assert.deepEqual(ran.sort(), [now.id, soon.id].sort());
    // once due, it runs
    await updateJob(tm, later.id, 'run_at = now()');
    await waitForStatus(tm, later.id, JobStatus.COMPLETED);
  });

  test('higher priority runs first, then earlier run time', async () => {
    const tm = await open();
    const order: string[] = [];
    tm.createQueue({ name: 'q', handler: (job) => void order.push((job.data as { name: string }).name) });
    const past = (seconds: number) => new Date(Date.now() - seconds * 1000);
    await tm.addJobs([
      { queue: 'q', data: { name: 'p0-late' }, runAt: past(10) },
      { queue: 'q', data: { name: 'p5-a' }, priority: 5, runAt: past(20) },
      { queue: 'q', data: { name: 'low' }, priority: -1, runAt: past(300) },
      { queue: 'q', data: { name: 'p5-b' }, priority: 5, runAt: past(5) },
      { queue: 'q', data: { name: 'p0-early' }, runAt: past(60) },
      { queue: 'q', data: { name: 'top' }, priority: 10, runAt: past(1) },
    ]);
    const worker = fastWorker(tm, { concurrency: 1 });
    await worker.start();
    await waitFor('all six jobs', () => order.length === 6);
    assert.deepEqual(order, ['top', 'p5-a', 'p5-b', 'p0-early', 'p0-late', 'low']);
  });

  test('expireInSeconds: an overdue job is never claimed and the tick expires it', async () => {
    const tm = await open();
    const ran: string[] = [];
    tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.id) });
    const overdue = await tm.addJob({ queue: 'q', expireInSeconds: 0.05, priority: 10 });
    await waitFor('the deadline to pass', async () => {
      const job = await tm.getJob(overdue.id);
      return job?.expireAt && job.expireAt.getTime() < Date.now() - 50;
    });
    // The tick of this worker is far away: only the claim's own filter keeps the job out.
    const worker = fastWorker(tm, { tickIntervalSeconds: 86_400, concurrency: 1 });
    await worker.start();
    const after = await tm.addJob({ queue: 'q' });
    await waitForStatus(tm, after.id, JobStatus.COMPLETED);
    let job = await tm.getJob(overdue.id);
    assert.equal(job?.attempts, 0);
    assert.equal(job?.startedAt, null);
    assert.deepEqual(ran, [after.id]);
    await worker.service('tick')?.runNow();
    job = await tm.getJob(overdue.id);
    assert.equal(job?.status, JobStatus.EXPIRED);
    assert.ok(job?.finishedAt instanceof Date);
    await assert.rejects(
      tm.result(overdue.id),
      (error: unknown) => error instanceof JobFailedError && error.details.status === 'expired',
    );
  });

  test('a job started before its deadline is not expired', async () => {
    const tm = await open();
    const held = deferred();
    tm.createQueue({
      name: 'q',
      handler: async () => {
        await held.promise;
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'q', expireInSeconds: 3_600 });
    await fastWorker(tm).start();
    await waitForStatus(tm, id, JobStatus.ACTIVE);
    await updateJob(tm, id, `expire_at = now() - interval '1 second'`);
    const ticks: unknown[] = [];
    tm.on('maintenance:tick', (e) => ticks.push(e));
    await waitFor('two maintenance ticks', () => ticks.length >= 2);
    held.resolve();
    assert.equal(await tm.result(id), 'done');
  });
});
