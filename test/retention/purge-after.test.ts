import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { type Job, NonRetryableError, type Tidemark } from '../../src/index.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';
import { fastWorker, updateJob, waitForStatus } from '../support/jobs.js';

/** Windows that differ per status, so each assertion also proves which window was used. */
const WINDOWS = { completed: 11, failed: 22, cancelled: 33, expired: 44, consumedSignals: 55 };

/** purge_after must be finished_at + the frozen window of the final status, to the millisecond. */
function assertPurgeAfter(job: Job | null, status: string, window: number | null): void {
  assert.ok(job, 'job exists');
  assert.equal(job.status, status);
  assert.ok(job.finishedAt, 'finishedAt is set');
  if (window === null) {
    assert.equal(job.purgeAfter, null);
    return;
  }
  assert.ok(job.purgeAfter, 'purgeAfter is set');
  assert.equal(job.purgeAfter.getTime() - job.finishedAt.getTime(), window * 1000);
}

describeEachDriver('purge_after is set by every finishing write', ({ open }) => {
  async function engine(): Promise<Tidemark> {
    return open({ retention: WINDOWS });
  }

  test('handler completion (batched write and completion transaction)', async () => {
    const tm = await engine();
    tm.createQueue({ name: 'plain', handler: async () => 'ok' });
    tm.createQueue({
      name: 'tx',
      handler: async (_job, ctx) => {
        ctx.completionTx(async () => {});
        return 'ok';
      },
    });
    const a = await tm.addJob({ queue: 'plain' });
    const b = await tm.addJob({ queue: 'tx' });
    const worker = fastWorker(tm);
    await worker.start();
    await tm.result(a.id, { timeoutSeconds: 15 });
    await tm.result(b.id, { timeoutSeconds: 15 });
    await worker.stop();
    assertPurgeAfter(await tm.getJob(a.id), 'completed', WINDOWS.completed);
    assertPurgeAfter(await tm.getJob(b.id), 'completed', WINDOWS.completed);
  });

  test('handler failure with attempts spent, or not retryable; a retry-waiting job has none', async () => {
    const tm = await engine();
    tm.createQueue({
      name: 'boom',
      maxAttempts: 1,
      handler: async () => {
        throw new Error('boom');
      },
    });
    tm.createQueue({
      name: 'fatal',
      maxAttempts: 5,
      handler: async () => {
        throw new NonRetryableError('no');
      },
    });
    tm.createQueue({
      name: 'again',
      maxAttempts: 5,
      backoff: { delaySeconds: 3_600, jitter: false },
      handler: async () => {
        throw new Error('later');
      },
    });
    const a = await tm.addJob({ queue: 'boom' });
    const b = await tm.addJob({ queue: 'fatal' });
    const c = await tm.addJob({ queue: 'again' });
    const worker = fastWorker(tm);
    await worker.start();
    await waitForStatus(tm, a.id, 'failed');
    await waitForStatus(tm, b.id, 'failed');
    const retrying = await waitForStatus(tm, c.id, 'retry');
    await worker.stop();
    assertPurgeAfter(await tm.getJob(a.id), 'failed', WINDOWS.failed);
    assertPurgeAfter(await tm.getJob(b.id), 'failed', WINDOWS.failed);
    assert.equal(retrying.purgeAfter, null);
    assert.equal(retrying.finishedAt, null);
  });

  test('cancel, for the job and each in-flight job below it', async () => {
    const tm = await engine();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q' });
    const child = await insertJob(tm, { status: 'pending', parentId: id, retention: WINDOWS });
    await tm.cancelJob(id);
    assertPurgeAfter(await tm.getJob(id), 'cancelled', WINDOWS.cancelled);
    assertPurgeAfter(await tm.getJob(child), 'cancelled', WINDOWS.cancelled);
  });

  test('expiry by the maintenance tick', async () => {
    const tm = await engine();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', expireInSeconds: 3_600 });
    await updateJob(tm, id, `expire_at = now() - interval '1 second'`);
    await tickOnce(tickInputs(engineOf(tm)));
    assertPurgeAfter(await tm.getJob(id), 'expired', WINDOWS.expired);
  });

  test('stalled recovery: failed when its attempts are spent, retry (no purge time) otherwise', async () => {
    const tm = await engine();
    const spent = await insertJob(tm, { status: 'active', retention: WINDOWS });
    const left = await insertJob(tm, { status: 'active', retention: WINDOWS });
    await updateJob(tm, spent, 'max_attempts = 1, attempts = 1');
    await updateJob(tm, left, 'max_attempts = 3, attempts = 1');
    await tickOnce(tickInputs(engineOf(tm)));
    assertPurgeAfter(await tm.getJob(spent), 'failed', WINDOWS.failed);
    const retry = await tm.getJob(left);
    assert.ok(retry?.status === 'retry' || retry?.status === 'pending', retry?.status);
    assert.equal(retry.purgeAfter, null);
  });

  test('a status without a window (or a window of 0) is kept forever: purge_after stays null', async () => {
    const tm = await open({ retention: { completed: 0, failed: 5 } });
    tm.createQueue({ name: 'q', handler: async () => 'ok' });
    const { id } = await tm.addJob({ queue: 'q' });
    const cancelled = await tm.addJob({ queue: 'q', delaySeconds: 3_600 });
    const worker = fastWorker(tm);
    await worker.start();
    await tm.result(id, { timeoutSeconds: 15 });
    await worker.stop();
    await tm.cancelJob(cancelled.id);
    assertPurgeAfter(await tm.getJob(id), 'completed', null);
    assertPurgeAfter(await tm.getJob(cancelled.id), 'cancelled', null);
  });

  test('retryJob clears the purge time of a finished job', async () => {
    const tm = await engine();
    tm.createQueue({ name: 'q' });
    const id = await insertJob(tm, { status: 'failed', retention: WINDOWS });
    assert.ok((await tm.getJob(id))?.purgeAfter);
    await tm.retryJob(id);
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'pending');
    assert.equal(job?.purgeAfter, null);
  });

  test('purge_after has a partial index, and only finished rows carry a value', async () => {
    const tm = await engine();
    const [index] = await rawQuery<{ indexdef: string }>(
      tm,
      `select indexdef from pg_indexes where schemaname = $1 and indexname = 'jobs_purge_after_idx'`,
      [tm.schema],
    );
    assert.ok(index, 'jobs_purge_after_idx exists');
    assert.match(index.indexdef, /\(purge_after, id\) WHERE \(purge_after IS NOT NULL\)/);
  });
});
