import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

/** Counts handlers running at once, and the most seen. */
function gauge() {
  const state = { now: 0, max: 0, done: 0 };
  return {
    state,
    async around<T>(fn: () => Promise<T>): Promise<T> {
      state.now++;
      state.max = Math.max(state.max, state.now);
      try {
        return await fn();
      } finally {
        state.now--;
        state.done++;
      }
    },
  };
}

describeEachDriver('worker concurrency', ({ open }) => {
  test('a worker never runs more handlers at once than its concurrency', async () => {
    const tm = await open();
    const g = gauge();
    tm.createQueue({ name: 'q', handler: () => g.around(() => sleep(20)) });
    await tm.addJobs(Array.from({ length: 24 }, () => ({ queue: 'q' })));
    await fastWorker(tm, { concurrency: 3 }).start();
    await waitFor('all jobs to run', () => g.state.done === 24);
    assert.equal(g.state.max, 3);
  });

  test("a queue's concurrency caps its jobs on a worker; other queues use the rest", async () => {
    const tm = await open();
    const capped = gauge();
    const free = gauge();
    tm.createQueue({ name: 'capped', concurrency: 2, handler: () => capped.around(() => sleep(20)) });
    tm.createQueue({ name: 'free', handler: () => free.around(() => sleep(20)) });
    await tm.addJobs(Array.from({ length: 12 }, () => ({ queue: 'capped' })));
    await tm.addJobs(Array.from({ length: 12 }, () => ({ queue: 'free' })));
    const worker = fastWorker(tm, { concurrency: 6 });
    let maxActive = 0;
    tm.on('job:started', () => {
      maxActive = Math.max(maxActive, worker.activeCount);
    });
    await worker.start();
    await waitFor('all jobs to run', () => capped.state.done === 12 && free.state.done === 12);
    assert.equal(capped.state.max, 2);
    assert.ok(free.state.max >= 2, `free queue ran ${free.state.max} at once`);
    assert.ok(maxActive <= 6, `worker ran ${maxActive} at once`);
  });

  test('two workers share the work without running a job twice', async () => {
    const tm = await open();
    const runs = new Map<string, number>();
    tm.createQueue({
      name: 'q',
      handler: async (job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
        await sleep(1);
      },
    });
    const ids = (await tm.addJobs(Array.from({ length: 200 }, () => ({ queue: 'q' })))).map((r) => r.id);
    await Promise.all([
      fastWorker(tm, { concurrency: 4 }).start(),
      fastWorker(tm, { concurrency: 4 }).start(),
    ]);
    await waitFor('all jobs to run', () => runs.size === 200, { timeoutMs: 30_000 });
    await waitFor('all jobs to be completed', async () => {
      const rows = await engineOf(tm).storage.jobs.getStatuses(ids);
      return [...rows.values()].every((s) => s === 'completed');
    });
    assert.ok([...runs.values()].every((n) => n === 1));
  });
});
