import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Job, JobStatus } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';

describeEachDriver('the job a handler receives', ({ open }) => {
  test('matches its row as the claim left it', async () => {
    const tm = await open();
    const seen = deferred<{ given: Job; stored: Job | null }>();
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        seen.resolve({ given: job, stored: await tm.getJob(job.id) });
      },
    });
    const { id } = await tm.addJob({ queue: 'q', data: { a: 1 }, priority: 2, expireInSeconds: 600 });
    const worker = fastWorker(tm, { lockSeconds: 45 });
    await worker.start();
    try {
      const { given, stored } = await seen.promise;
      assert.ok(stored);
      assert.equal(given.status, JobStatus.ACTIVE);
      assert.equal(given.lockedBy, worker.id);
      assert.equal(given.finishedAt, null);
      assert.equal(given.purgeAfter, null);
      assert.equal(given.attempts, 1);
      for (const field of ['runAt', 'createdAt', 'startedAt', 'lockedUntil', 'expireAt'] as const) {
        assert.equal(given[field]?.getTime(), stored[field]?.getTime(), field);
      }
      assert.equal((given.lockedUntil?.getTime() ?? 0) - (given.startedAt?.getTime() ?? 0), 45_000);
      assert.equal(given.id, id);
      assert.deepEqual(given, stored);
    } finally {
      await worker.stop();
    }
  });
});
