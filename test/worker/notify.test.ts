import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobStatus } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import { sleep } from '../support/wait-for.js';

describeEachDriver('worker wake-up', ({ open }) => {
  test('an idle worker wakes on NOTIFY long before its 30 s poll', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'ok' });
    // The tick also nudges due queues: keep it out of the way.
    const worker = fastWorker(tm, { pollIntervalSeconds: 30, tickIntervalSeconds: 86_400 });
    await worker.start();
    // One round trip first, so the worker has claimed, found nothing more and gone to sleep.
    const warmup = await tm.addJob({ queue: 'q' });
    await waitForStatus(tm, warmup.id, JobStatus.COMPLETED, 10_000);
    await sleep(200);
    const { id } = await tm.addJob({ queue: 'q' });
    // Well under the poll interval: only the notification can have woken it.
    await waitForStatus(tm, id, JobStatus.COMPLETED, 10_000);
  });

  test('resuming a paused queue wakes an idle worker', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'ok' });
    await tm.pauseQueue('q');
    const { id } = await tm.addJob({ queue: 'q' });
    const worker = fastWorker(tm, { pollIntervalSeconds: 30, tickIntervalSeconds: 86_400 });
    await worker.start();
    await sleep(200);
    assert.equal((await tm.getJob(id))?.status, JobStatus.PENDING);
    await tm.resumeQueue('q');
    await waitForStatus(tm, id, JobStatus.COMPLETED, 10_000);
  });
});
