import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidJobStateError,
  JobFailedError,
  JobNotFoundError,
  JobStatus,
  QueueNotFoundError,
} from '../../src/index.js';
import { channelOf } from '../../src/storage/schema-name.js';
import { driverOf, rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { aborted, deferred, fastWorker, updateJob, waitForStatus } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

describeEachDriver('cancelJob', ({ open }) => {
  test('a pending job is cancelled and never runs', async () => {
    const tm = await open();
    const ran: string[] = [];
    tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.id) });
    const { id } = await tm.addJob({ queue: 'q' });
    const cancelled = await tm.cancelJob(id);
    assert.equal(cancelled.status, JobStatus.CANCELLED);
    assert.ok(cancelled.finishedAt instanceof Date);
    const other = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await waitForStatus(tm, other.id, JobStatus.COMPLETED);
    assert.deepEqual(ran, [other.id]);
    assert.equal((await tm.getJob(id))?.status, JobStatus.CANCELLED);
    await assert.rejects(
      tm.result(id),
      (e: unknown) => e instanceof JobFailedError && e.details.status === 'cancelled',
    );
  });

  test("an active job's signal fires and its late completion changes nothing", async () => {
    const tm = await open();
    const started = deferred();
    let reason: unknown;
    tm.createQueue({
      name: 'q',
      handler: async (_job, ctx) => {
        started.resolve();
        reason = await aborted(ctx.signal);
        // A handler that ignores the signal and finishes anyway.
        return 'late output';
      },
    });
    const lost: string[] = [];
    const completed: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    tm.on('job:completed', (e) => completed.push(e.id));
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await started.promise;
    const cancelled = await tm.cancelJob(id);
    assert.equal(cancelled.status, JobStatus.CANCELLED);
    await waitFor('the handler to see the abort', () => reason !== undefined);
    await waitFor('the attempt to report the job lost', () => lost.includes(id));
    const job = await tm.getJob(id);
    assert.equal(job?.status, JobStatus.CANCELLED);
    assert.equal(job?.output, null);
    assert.equal(job?.attempts, 1);
    assert.deepEqual(completed, []);
  });

  test('a cancel notice that arrives after the job was retried and claimed again leaves the new attempt alone', async () => {
    const tm = await open();
    const channel = channelOf(tm.schema);
    const notices: string[] = [];
    const subscription = await driverOf(tm).listen(channel, (payload) => {
      if (payload.startsWith('c:')) notices.push(payload);
    });
    const first = deferred();
    const second = deferred();
    const finishSecond = deferred();
    let secondSignal: AbortSignal | undefined;
    tm.createQueue({
      name: 'q',
      handler: async (job, ctx) => {
        if (job.attempts === 1) {
          first.resolve();
          await aborted(ctx.signal);
          return 'first';
        }
        secondSignal = ctx.signal;
        second.resolve();
        await finishSecond.promise;
        return 'second';
      },
    });
    const lost: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await first.promise;
    await tm.cancelJob(id);
    await waitFor(
      'the cancel notice and the first attempt to end',
      () => notices.length === 1 && lost.includes(id),
    );
    await tm.retryJob(id);
    await second.promise;
    // The cancel's notice once more, as a listener that read it late would get it: by now the
    // job is claimed again, under another lock token.
    await rawQuery(tm, 'select pg_notify($1, $2)', [channel, notices[0]]);
    await waitFor('the notice to arrive again', () => notices.length === 2);
    await sleep(50);
    assert.equal(secondSignal?.aborted, false, "the second attempt's signal did not fire");
    finishSecond.resolve();
    const job = await waitForStatus(tm, id, JobStatus.COMPLETED);
    assert.deepEqual([job.output, job.attempts], ['second', 2]);
    await subscription.close();
  });

  test('cancelling a finished job is a no-op that returns the job', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'out' });
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await tm.result(id);
    const before = await tm.getJob(id);
    const after = await tm.cancelJob(id);
    assert.deepEqual(after, before);
    assert.equal(after.status, JobStatus.COMPLETED);
  });

  test('an unknown id is JobNotFoundError', async () => {
    const tm = await open();
    await assert.rejects(tm.cancelJob('987654321'), JobNotFoundError);
  });
});

describeEachDriver('retryJob', ({ open }) => {
  test('failed, cancelled and expired jobs run again', async () => {
    const tm = await open();
    let failNext = true;
    tm.createQueue({
      name: 'q',
      maxAttempts: 1,
      handler: (job) => {
        if (failNext && (job.data as { kind: string }).kind === 'failing') throw new Error('no');
        return (job.data as { kind: string }).kind;
      },
    });
    const failing = await tm.addJob({ queue: 'q', data: { kind: 'failing' } });
    const cancelled = await tm.addJob({ queue: 'q', data: { kind: 'cancelled' } });
    await tm.cancelJob(cancelled.id);
    const expired = await tm.addJob({ queue: 'q', data: { kind: 'expired' }, expireInSeconds: 3_600 });
    await updateJob(tm, expired.id, `expire_at = now() - interval '1 second'`);
    const worker = fastWorker(tm);
    await worker.start();
    await waitForStatus(tm, failing.id, JobStatus.FAILED);
    await waitForStatus(tm, expired.id, JobStatus.EXPIRED);

    failNext = false;
    for (const { id } of [failing, cancelled, expired]) {
      const job = await tm.retryJob(id);
      // The running worker may already have taken it, or even finished it, by the time the
      // retry reads the row back.
      assert.ok(
        ([JobStatus.PENDING, JobStatus.ACTIVE, JobStatus.COMPLETED] as string[]).includes(job.status),
        `retried job is ${job.status}`,
      );
    }
    assert.equal(await tm.result(failing.id), 'failing');
    assert.equal(await tm.result(cancelled.id), 'cancelled');
    assert.equal(await tm.result(expired.id), 'expired');
    // the failed job had spent its single attempt: the retry granted one more
    const job = await tm.getJob(failing.id);
    assert.equal(job?.attempts, 2);
    assert.equal(job?.maxAttempts, 2);
  });

  test('in-flight jobs are refused with InvalidJobStateError', async () => {
    const tm = await open();
    const hold = deferred();
    tm.createQueue({ name: 'q', handler: () => hold.promise });
    const pending = await tm.addJob({ queue: 'q', delaySeconds: 3_600 });
    const active = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await waitForStatus(tm, active.id, JobStatus.ACTIVE);
    for (const { id } of [pending, active]) {
      await assert.rejects(
        tm.retryJob(id),
        (e: unknown) => e instanceof InvalidJobStateError && e.code === 'INVALID_JOB_STATE',
      );
    }
    assert.equal((await tm.getJob(pending.id))?.status, JobStatus.PENDING);
    assert.equal((await tm.getJob(active.id))?.status, JobStatus.ACTIVE);
    hold.resolve();
    await tm.result(active.id);
  });

  test('an unknown id is JobNotFoundError', async () => {
    const tm = await open();
    await assert.rejects(tm.retryJob('987654321'), JobNotFoundError);
  });
});

describeEachDriver('pauseJob / resumeJob', ({ open }) => {
  test('a paused job is not claimed; resumed, it runs', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'ran' });
    const { id } = await tm.addJob({ queue: 'q' });
    const paused = await tm.pauseJob(id);
    assert.equal(paused.status, JobStatus.PAUSED);
    // pausing again is harmless
    assert.equal((await tm.pauseJob(id)).status, JobStatus.PAUSED);
    const other = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await waitForStatus(tm, other.id, JobStatus.COMPLETED);
    assert.equal((await tm.getJob(id))?.status, JobStatus.PAUSED);
    assert.equal((await tm.getJob(id))?.attempts, 0);
    const resumed = await tm.resumeJob(id);
    assert.ok(resumed.status === JobStatus.PENDING || resumed.status === JobStatus.ACTIVE);
    assert.equal(await tm.result(id), 'ran');
  });

  test('a paused retry goes back to retry, keeping its attempts', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'q',
      backoff: { delaySeconds: 3_600 },
      handler: () => {
        throw new Error('x');
      },
    });
    const { id } = await tm.addJob({ queue: 'q' });
    const worker = fastWorker(tm);
    await worker.start();
    await waitForStatus(tm, id, JobStatus.RETRY);
    await worker.stop();
    assert.equal((await tm.pauseJob(id)).status, JobStatus.PAUSED);
    const resumed = await tm.resumeJob(id);
    assert.equal(resumed.status, JobStatus.RETRY);
    assert.equal(resumed.attempts, 1);
    // the backoff still runs its course
    assert.ok(resumed.runAt.getTime() > Date.now() + 1_000_000);
  });

  test('a delayed job keeps its run time across pause and resume', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const runAt = new Date(Date.now() + 3_600_000);
    const { id } = await tm.addJob({ queue: 'q', runAt });
    await tm.pauseJob(id);
    const resumed = await tm.resumeJob(id);
    assert.equal(resumed.status, JobStatus.PENDING);
    assert.equal(resumed.runAt.getTime(), runAt.getTime());
  });

  test('pausing an active or finished job is refused; resuming a job that is not paused too', async () => {
    const tm = await open();
    const hold = deferred();
    tm.createQueue({ name: 'q', handler: () => hold.promise });
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm).start();
    await waitForStatus(tm, id, JobStatus.ACTIVE);
    await assert.rejects(
      tm.pauseJob(id),
      (e: unknown) => e instanceof InvalidJobStateError && e.status === 'active',
    );
    await assert.rejects(tm.resumeJob(id), InvalidJobStateError);
    assert.equal((await tm.getJob(id))?.status, JobStatus.ACTIVE);
    hold.resolve();
    await tm.result(id);
    await assert.rejects(
      tm.pauseJob(id),
      (e: unknown) => e instanceof InvalidJobStateError && e.status === 'completed',
    );
    await assert.rejects(tm.pauseJob('987654321'), JobNotFoundError);
    await assert.rejects(tm.resumeJob('987654321'), JobNotFoundError);
  });
});

describeEachDriver('pauseQueue / resumeQueue', ({ open }) => {
  test("a paused queue's jobs wait while other queues run; resumed, they run", async () => {
    const tm = await open();
    tm.createQueue({ name: 'held', handler: () => 'held ran' });
    tm.createQueue({ name: 'free', handler: () => 'free ran' });
    await tm.pauseQueue('held');
    assert.equal((await tm.listQueues()).find((q) => q.name === 'held')?.paused, true);
    const held = await tm.addJob({ queue: 'held' });
    await fastWorker(tm).start();
    const free = await tm.addJob({ queue: 'free' });
    assert.equal(await tm.result(free.id), 'free ran');
    assert.equal((await tm.getJob(held.id))?.status, JobStatus.PENDING);
    await tm.resumeQueue('held');
    assert.equal(await tm.result(held.id), 'held ran');
  });

  test('an unknown queue is QueueNotFoundError', async () => {
    const tm = await open();
    await assert.rejects(tm.pauseQueue('nope'), QueueNotFoundError);
    await assert.rejects(tm.resumeQueue('nope'), QueueNotFoundError);
  });
});
