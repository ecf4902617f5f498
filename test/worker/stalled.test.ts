import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { JobStatus, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/** Claim as a worker that then dies: nothing will ever heartbeat or finish this attempt. */
async function claimAsDeadWorker(tm: Tidemark, queue: string, lockSeconds = 1) {
  const [claimed] = await engineOf(tm).storage.attempts.claimJobs([queue], 1, 'dead-worker', lockSeconds);
  assert.ok(claimed, 'the dead worker claimed a job');
  return claimed;
}

describeEachDriver('stalled-job recovery', ({ open, openOnClock }) => {
  // On the test clock: the lock lapses when the test moves the clock past it, not a second later.
  test('a lapsed lock goes back to retry and another worker completes the job', async () => {
    const tm = await openOnClock();
    const seen: number[] = [];
    tm.createQueue({
      name: 'q',
      handler: (job) => {
        seen.push(job.attempts);
        return 'recovered';
      },
    });
    const { id } = await tm.addJob({ queue: 'q' });
    const dead = await claimAsDeadWorker(tm, 'q');
    assert.equal(dead.job.id, id);
    const recovered: number[] = [];
    tm.on('maintenance:tick', (e) => e.stalled > 0 && recovered.push(e.stalled));
    await tm.clock.advance(1);
    assert.deepEqual(await tm.runUntilIdle(), { attempts: 0, idle: true }, 'held until the lock lapses');
    await tm.clock.advance(0.001);
    await tm.runUntilIdle();
    assert.equal(await tm.result(id), 'recovered');
    assert.deepEqual(seen, [2]);
    assert.deepEqual(recovered, [1]);
    const job = await tm.getJob(id);
    assert.equal(job?.attempts, 2);
    assert.equal(job?.error?.name, 'StalledJobError');
    assert.equal(job?.error?.worker, 'dead-worker');
    // the dead worker's late write changes nothing
    const written = await engineOf(tm).storage.attempts.finishAttempts([
      { id, token: dead.token, ok: false, error: '{"message":"late"}', retryDelaySeconds: 0 },
    ]);
    assert.deepEqual([...written], [[dead.token, null]], 'the late write is reported as lost');
    assert.deepEqual(await tm.getJob(id), job);
  });

  test("a stale attempt's outcome written beside the current attempt's, for the same job, is reported lost", async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q' });
    const stale = await claimAsDeadWorker(tm, 'q');
    // The stale attempt's lock lapsed and the job went back, as stalled recovery leaves it.
    await rawQuery(
      tm,
      `update "${tm.schema}".jobs set status = 'retry', lock_token = null, locked_by = null, locked_until = null where id = $1`,
      [id],
    );
    const current = await claimAsDeadWorker(tm, 'q');
    const written = await engineOf(tm).storage.attempts.finishAttempts([
      { id, token: stale.token, ok: true, output: '"stale"' },
      { id, token: current.token, ok: true, output: '"current"' },
    ]);
    assert.deepEqual([...written], [[stale.token, null]], 'only the stale outcome is an exception');
    const job = await tm.getJob(id);
    assert.deepEqual([job?.status, job?.output, job?.attempts], [JobStatus.COMPLETED, 'current', 2]);
  });

  test('a lapsed lock with its attempts spent ends failed', async () => {
    const tm = await openOnClock();
    const ran: string[] = [];
    tm.createQueue({ name: 'q', maxAttempts: 1, handler: (job) => void ran.push(job.id) });
    const { id } = await tm.addJob({ queue: 'q' });
    await claimAsDeadWorker(tm, 'q');
    await tm.clock.advance(1.001);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, JobStatus.FAILED);
    assert.equal(job.attempts, 1);
    assert.equal(job.error?.name, 'StalledJobError');
    assert.deepEqual(job.finishedAt, tm.clock.now());
    assert.equal(job.lockedBy, null);
    assert.deepEqual(ran, []);
  });

  test('heartbeats keep a long attempt from being recovered', async () => {
    const tm = await open();
    const finish = deferred();
    const started = deferred();
    tm.createQueue({
      name: 'q',
      handler: async () => {
        started.resolve();
        await finish.promise;
        return 'kept';
      },
    });
    const { id } = await tm.addJob({ queue: 'q' });
    await fastWorker(tm, { lockSeconds: 1 }).start();
    await started.promise;
    const first = (await tm.getJob(id))?.lockedUntil as Date;
    // Past the first lock's end, the job is still owned, with a later lock.
    await waitFor('the lock to be extended past its first deadline', async () => {
      const job = await tm.getJob(id);
      return (
        job?.status === JobStatus.ACTIVE &&
        job.lockedUntil &&
        job.lockedUntil > first &&
        Date.now() > first.getTime() + 200 &&
        job
      );
    });
    finish.resolve();
    assert.equal(await tm.result(id), 'kept');
    const job = await tm.getJob(id);
    assert.equal(job?.attempts, 1);
    assert.equal(job?.error, null);
  });
});
