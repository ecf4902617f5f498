import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A worker claims queues without a cap in one statement and each capped queue in one of its
 * own. What the first statements claimed was held back until the last returned: no beat
 * extended those locks meanwhile, and when a later statement failed they were dropped,
 * locked and never run until their locks lapsed.
 */
describeEachDriver('a claim of several statements', ({ open }) => {
  test("the first statement's jobs run though the capped queue's claim fails", async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'free', handler: () => 'ran' });
    tm.createQueue({ name: 'capped', concurrency: 1, handler: () => 'ran' });
    const { attempts } = engineOf(tm).storage;
    const claimJobs = attempts.claimJobs;
    let refused = 0;
    attempts.claimJobs = (queues, ...rest) => {
      if (queues.includes('capped')) {
        refused++;
        return Promise.reject(new Error('the capped claim fails'));
      }
      return claimJobs(queues, ...rest);
    };
    const free = await tm.addJob({ queue: 'free' });
    await tm.addJob({ queue: 'capped' });
    // A lock far longer than the test: only the claim itself can let the job run.
    const worker = fastWorker(tm, { lockSeconds: 600 });
    await worker.start();
    try {
      await waitFor(
        'the uncapped job to complete',
        async () => (await tm.getJob(free.id))?.status === 'completed',
        {
          timeoutMs: 10_000,
        },
      );
      assert.ok(refused > 0, 'the capped claim was tried and failed');
    } finally {
      await worker.stop();
      attempts.claimJobs = claimJobs;
    }
  });
});
