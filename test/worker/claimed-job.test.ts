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

  test('jobs of one claim with different retentions each get their own, and share one start time', async () => {
    const tm = await open();
    const given = new Map<string, Job>();
    const all = deferred<void>();
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        given.set(job.id, job);
        if (given.size === 6) all.resolve();
      },
    });
    // The claim's lead (lowest id) has a policy of its own; the others alternate between that
    // policy and the stock one, so rows both like and unlike the lead come in one claim.
    const added = await tm.addJobs(
      Array.from({ length: 6 }, (_, n) => ({
        queue: 'q',
        data: { n },
        ...(n % 2 === 0 ? { retention: { completed: 60 } } : {}),
      })),
    );
    const stored = await Promise.all(added.map(({ id }) => tm.getJob(id)));
    const worker = fastWorker(tm, { concurrency: 6 });
    await worker.start();
    try {
      await all.promise;
      for (const job of stored) {
        assert.ok(job);
        assert.deepEqual(given.get(job.id)?.retention, job.retention, `job ${job.id}`);
      }
      const starts = new Set([...given.values()].map((job) => job.startedAt?.getTime()));
      assert.equal(starts.size, 1, 'one claim, one start time');
      assert.notEqual([...starts][0], undefined);
    } finally {
      await worker.stop();
    }
  });

  test('a child on a key, tagged, on its second attempt, carries every column its row holds', async () => {
    const tm = await open();
    const seen = deferred<{ given: Job; stored: Job | null }>();
    tm.createQueue({
      name: 'child',
      keys: { concurrency: { default: 2, tiers: { gold: 3 } } },
      backoff: { delaySeconds: 0 },
      handler: async (job, ctx) => {
        if (job.attempts === 1) {
          ctx.progress({ done: 4, total: 10 });
          ctx.metadata.set('rows', 4);
          throw new Error('first attempt fails');
        }
        seen.resolve({ given: job, stored: await tm.getJob(job.id) });
        return 'child done';
      },
    });
    tm.createQueue({
      name: 'parent',
      handler: (_job, ctx) =>
        ctx.runChild('child', { n: 1 }, { key: 'tenant-a', tier: 'gold', tags: ['nightly', 'eu'] }),
    });
    const { id: parentId } = await tm.addJob({ queue: 'parent' });
    const worker = fastWorker(tm);
    await worker.start();
    try {
      const { given, stored } = await seen.promise;
      assert.ok(stored);
      assert.equal(given.attempts, 2);
      assert.equal(given.parentId, parentId);
      assert.equal(given.rootId, parentId);
      assert.equal(given.key, 'tenant-a');
      assert.equal(given.tier, 'gold');
      assert.deepEqual(given.tags, ['nightly', 'eu']);
      assert.deepEqual(given.progress, { done: 4, total: 10 });
      assert.deepEqual(given.metadata, { rows: 4 });
      assert.equal(given.error?.message, 'first attempt fails');
      assert.deepEqual(given, stored);
      assert.equal(await tm.result(parentId), 'child done');
    } finally {
      await worker.stop();
    }
  });
});
