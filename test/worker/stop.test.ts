import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { JobStatus } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { aborted, deferred, fastWorker, waitForStatus } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

describeEachDriver('worker.stop()', ({ open, openOnClock }) => {
  test('stops claiming and waits for running handlers', async () => {
    const tm = await open();
    const started = deferred();
    const finish = deferred();
    let handlerDone = false;
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        if ((job.data as { first?: boolean }).first) {
          started.resolve();
          await finish.promise;
          handlerDone = true;
        }
        return 'ok';
      },
    });
    const first = await tm.addJob({ queue: 'q', data: { first: true } });
    const worker = fastWorker(tm, { shutdownTimeoutSeconds: 60 });
    await worker.start();
    await started.promise;
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    const second = await tm.addJob({ queue: 'q', data: {} });
    // Several poll intervals pass: a stopping worker claims nothing and has not returned.
    await sleep(300);
    assert.equal(stopped, false);
    assert.equal((await tm.getJob(second.id))?.status, JobStatus.PENDING);
    finish.resolve();
    await stopping;
    assert.equal(handlerDone, true);
    // The running job's outcome was written before stop() returned.
    assert.equal((await tm.getJob(first.id))?.status, JobStatus.COMPLETED);
    assert.equal((await tm.getJob(second.id))?.status, JobStatus.PENDING);
    assert.equal(worker.isRunning, false);
  });

  test('jobs a claim brings back after stop() began are given back, not started', async () => {
    const tm = await open();
    const ran: string[] = [];
    tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.id) });
    // The worker's first claim waits until the test lets it go: it is in flight when stop() begins.
    const { attempts } = engineOf(tm).storage;
    const claimJobs = attempts.claimJobs.bind(attempts);
    const gate = deferred();
    let claiming = false;
    attempts.claimJobs = async (...args: Parameters<typeof claimJobs>) => {
      claiming = true;
      await gate.promise;
      return claimJobs(...args);
    };
    const worker = fastWorker(tm);
    await worker.start();
    await waitFor('the first claim to be under way', () => claiming);
    const { id } = await tm.addJob({ queue: 'q' });
    const stopping = worker.stop();
    await waitFor('the worker to be stopping', () => !worker.isRunning);
    gate.resolve();
    await stopping;
    assert.deepEqual(ran, [], 'no handler started after stop() began');
    const job = await tm.getJob(id);
    assert.deepEqual([job?.status, job?.attempts], [JobStatus.PENDING, 0], 'given back as it was');
  });

  test('after shutdownTimeoutSeconds, running jobs are released without an attempt counted', async () => {
    const tm = await open();
    const signals: AbortSignal[] = [];
    let calls = 0;
    tm.createQueue({
      name: 'q',
      maxAttempts: 3,
      backoff: { delaySeconds: 0 },
      handler: async (job, ctx) => {
        calls++;
        if ((job.data as { failFirst?: boolean }).failFirst && job.attempts === 1) throw new Error('once');
        signals.push(ctx.signal);
        await new Promise(() => {});
      },
    });
    const fresh = await tm.addJob({ queue: 'q', data: {} });
    const retried = await tm.addJob({ queue: 'q', data: { failFirst: true } });
    const worker = fastWorker(tm, { shutdownTimeoutSeconds: 0.2 });
    await worker.start();
    await waitFor('both handlers to hang', () => signals.length === 2);
    await worker.stop();
    assert.ok(signals.every((s) => s.aborted));
    const a = await tm.getJob(fresh.id);
    assert.equal(a?.status, JobStatus.PENDING);
    assert.equal(a?.attempts, 0);
    assert.equal(a?.lockedBy, null);
    assert.equal(a?.lockedUntil, null);
    // its first attempt failed for real; the second, interrupted, is not counted (it goes back
    // to retry, which a tick may already have promoted to pending)
    const b = await tm.getJob(retried.id);
    assert.ok(b?.status === JobStatus.RETRY || b?.status === JobStatus.PENDING, `status ${b?.status}`);
    assert.equal(b?.attempts, 1);
    assert.equal(b?.lockedBy, null);
    assert.equal(calls, 3);
  });

  test('a released job is taken by the next worker at once', async () => {
    const tm = await open();
    let hang = true;
    tm.createQueue({
      name: 'q',
      handler: async (_job, ctx) => {
        if (hang) await aborted(ctx.signal);
        return 'done';
      },
    });
    const { id } = await tm.addJob({ queue: 'q' });
    const first = fastWorker(tm, { shutdownTimeoutSeconds: 0.1 });
    await first.start();
    await waitForStatus(tm, id, JobStatus.ACTIVE);
    await first.stop();
    hang = false;
    await fastWorker(tm).start();
    assert.equal(await tm.result(id), 'done');
    assert.equal((await tm.getJob(id))?.attempts, 1);
  });

  test('a workflow resumed from waiting is released back to waiting, its attempt kept', async () => {
    // On the test clock, beside real workers: the sleep ends when the test moves the clock.
    const tm = await openOnClock();
    const resumed: number[] = [];
    const suspended: string[] = [];
    tm.on('job:suspended', (e) => suspended.push(e.reason));
    let hang = true;
    tm.createQueue({
      name: 'wf',
      handler: async (job, ctx) => {
        await ctx.sleep('nap', 1);
        resumed.push(job.attempts);
        if (hang) await aborted(ctx.signal);
        return 'woke';
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    const first = fastWorker(tm, { shutdownTimeoutSeconds: 0.1 });
    await first.start();
    await waitFor('the workflow to suspend', () => suspended.length === 1);
    await tm.clock.advance(1);
    await waitFor('the workflow to resume after its sleep', () => resumed.length === 1);
    assert.deepEqual(suspended, ['sleep']);
    await first.stop();
    const job = await tm.getJob(id);
    assert.equal(job?.status, JobStatus.WAITING);
    assert.equal(job?.attempts, 1);
    assert.equal(job?.lockedBy, null);
    hang = false;
    await fastWorker(tm).start();
    assert.equal(await tm.result(id), 'woke');
    assert.equal((await tm.getJob(id))?.attempts, 1);
    assert.deepEqual(resumed, [1, 1]);
  });

  test('stop() and start() are idempotent', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'ok' });
    const worker = fastWorker(tm);
    await worker.stop();
    await Promise.all([worker.start(), worker.start()]);
    assert.equal(worker.isRunning, true);
    await Promise.all([worker.stop(), worker.stop()]);
    assert.equal(worker.isRunning, false);
    await worker.start();
    const { id } = await tm.addJob({ queue: 'q' });
    assert.equal(await tm.result(id), 'ok');
  });
});
