import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobStatus, JobTimeoutError } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { aborted, deferred, fastWorker, updateJob, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

describeEachDriver('per-attempt timeout', ({ open }) => {
  test('the attempt fails with JobTimeoutError and the signal is aborted', async () => {
    const tm = await open();
    let reason: unknown;
    tm.createQueue({
      name: 'slow',
      maxAttempts: 1,
      timeoutSeconds: 0.2,
      handler: async (_job, ctx) => {
        reason = await aborted(ctx.signal);
        return 'too late';
      },
    });
    const { id } = await tm.addJob({ queue: 'slow' });
    await fastWorker(tm).start();
    const job = await waitForStatus(tm, id, JobStatus.FAILED);
    assert.ok(reason instanceof JobTimeoutError);
    assert.equal(job.error?.name, 'JobTimeoutError');
    assert.equal(job.error?.code, 'JOB_TIMEOUT');
    assert.equal(job.output, null);
  });

  test('a handler that ignores its signal still times out, and retries when attempts remain', async () => {
    const tm = await open();
    tm.createQueue({
      name: 'stuck',
      maxAttempts: 2,
      timeoutSeconds: 0.1,
      backoff: { delaySeconds: 0 },
      handler: () => new Promise(() => {}),
    });
    const { id } = await tm.addJob({ queue: 'stuck' });
    await fastWorker(tm).start();
    const job = await waitForStatus(tm, id, JobStatus.FAILED);
    assert.equal(job.attempts, 2);
    assert.equal(job.error?.name, 'JobTimeoutError');
  });
});

describeEachDriver('a worker that lost its lock', ({ open }) => {
  for (const outcome of ['completion', 'failure'] as const) {
    test(`its ${outcome} changes nothing`, async () => {
      const tm = await open();
      const started = deferred();
      const finish = deferred();
      tm.createQueue({
        name: 'q',
        maxAttempts: 1,
        handler: async () => {
          started.resolve();
          await finish.promise;
          if (outcome === 'failure') throw new Error('failed after losing the lock');
          return 'output after losing the lock';
        },
      });
      const lost: string[] = [];
      tm.on('job:lost', (e) => lost.push(e.id));
      const { id } = await tm.addJob({ queue: 'q' });
      await fastWorker(tm, { shutdownTimeoutSeconds: 0.1 }).start();
      await started.promise;
      // Another owner took the job meanwhile (as a recovery on another node would).
      await updateJob(tm, id, 'lock_token = gen_random_uuid()');
      const before = await tm.getJob(id);
      finish.resolve();
      await waitFor('the attempt to report the job lost', () => lost.includes(id));
      assert.deepEqual(await tm.getJob(id), before);
      assert.equal(before?.status, JobStatus.ACTIVE);
    });
  }

  test('a job reclaimed by recovery: the old attempt cannot overwrite the new one', async () => {
    const tm = await open();
    const firstFinish = deferred<string>();
    const firstStarted = deferred();
    const secondFinish = deferred();
    let calls = 0;
    tm.createQueue({
      name: 'q',
      handler: async () => {
        calls++;
        if (calls === 1) {
          firstStarted.resolve();
          return firstFinish.promise;
        }
        await secondFinish.promise;
        return 'second attempt';
      },
    });
    const lost: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    const { id } = await tm.addJob({ queue: 'q' });
    // Heartbeats every 10 s: the lock lapses (backdated below) before the next one.
    const worker = fastWorker(tm, { lockSeconds: 30, shutdownTimeoutSeconds: 0.1 });
    await worker.start();
    await firstStarted.promise;
    // Backdate the lock until the tick has recovered the job (a heartbeat may extend it once),
    // and the worker's last beat with it: recovery spares the jobs of a worker that beats.
    await waitFor('the tick to recover the job', async () => {
      await rawQuery(
        tm,
        `update "${tm.schema}".workers set heartbeat_at = now() - interval '1 minute' where id = $1`,
        [worker.id],
      );
      await rawQuery(
        tm,
        `update "${tm.schema}".jobs set locked_until = now() - interval '1 second'
          where id = $1::bigint and status = 'active' and attempts = 1`,
        [id],
      );
      return calls === 2;
    });
    // The same worker runs both attempts of the job: both hold a slot until they settle.
    assert.equal(worker.activeCount, 2);
    secondFinish.resolve();
    assert.equal(await tm.result(id), 'second attempt');
    firstFinish.resolve('first attempt, too late');
    // The first attempt's finishing write matches no token.
    await waitFor('the first attempt to report the job lost', () => lost.includes(id));
    const job = await tm.getJob(id);
    assert.equal(job?.status, JobStatus.COMPLETED);
    assert.equal(job?.output, 'second attempt');
    assert.equal(job?.attempts, 2);
    assert.equal(job?.error?.name, 'StalledJobError');
  });
});
