import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BulkOutcome, Worker } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows, fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

/** Sum of the jobs the outcomes changed, and of those they left because they had changed. */
function totals(outcomes: BulkOutcome[]): { done: number; changed: number } {
  return {
    done: outcomes.reduce((n, o) => n + o.done, 0),
    changed: outcomes.reduce((n, o) => n + (o.refused.changed ?? 0), 0),
  };
}

// Several workers finish and start jobs while bulk actions run over the same jobs: each
// action must act only on jobs that still match its filter when it writes them.
describeEachDriver('bulk actions racing workers', ({ open, kind }) => {
  const JOBS = kind === 'pg' ? 1000 : 300;

  test('a bulk retry of failed jobs never reruns a job that completed meanwhile', async (t) => {
    const tm = await open();
    const runs = new Map<string, number>();
    const completions = new Map<string, number>();
    tm.createQueue({
      name: 'r',
      maxAttempts: 1,
      handler: async (job) => {
        const run = (runs.get(job.id) ?? 0) + 1;
        runs.set(job.id, run);
        if (run === 1) throw new Error('the first run fails');
        completions.set(job.id, (completions.get(job.id) ?? 0) + 1);
        return run;
      },
    });
    const ids = (await tm.addJobs(Array.from({ length: JOBS }, (_, i) => ({ queue: 'r', data: { i } })))).map(
      (r) => r.id,
    );
    const workers: Worker[] = [1, 2, 3].map(() => fastWorker(tm, { queues: ['r'], concurrency: 8 }));
    await Promise.all(workers.map((w) => w.start()));
    await waitFor('every job to fail its first run', async () =>
      (await countRows(tm, 'jobs', `status = 'failed'`)) === JOBS ? true : null,
    );

    // One retry walks up from the oldest job, having chosen them all at once; another retries
    // the newest third by id at the same time, so the first reaches jobs the second reopened
    // and the workers completed since.
    const upward = tm.retryJobs({ queue: 'r', status: 'failed' }, { batchSize: JOBS });
    const newest = tm.retryJobs({ ids: ids.slice(-Math.floor(JOBS / 3)), status: 'failed' });
    const outcomes = [await upward, await newest];
    await waitFor(
      'every job to complete',
      async () => ((await countRows(tm, 'jobs', `status = 'completed'`)) === JOBS ? true : null),
      { timeoutMs: 60_000 },
    );
    await Promise.all(workers.map((w) => w.stop()));

    const twice = ids.filter((id) => (completions.get(id) ?? 0) !== 1);
    assert.deepEqual(twice, [], 'every job completed exactly once');
    const { done, changed } = totals(outcomes);
    assert.equal(done, JOBS, 'each job was retried by exactly one of the two actions');
    t.diagnostic(`${changed} jobs left as changed`);
  });

  test('a bulk cancel of pending jobs never cancels a job whose handler started', async (t) => {
    const tm = await open();
    const started = new Set<string>();
    tm.createQueue({
      name: 'c',
      handler: async (job) => {
        started.add(job.id);
        await sleep(5);
        return 'ran';
      },
    });
    const ids = (await tm.addJobs(Array.from({ length: JOBS }, (_, i) => ({ queue: 'c', data: { i } })))).map(
      (r) => r.id,
    );
    const workers: Worker[] = [1, 2, 3].map(() => fastWorker(tm, { queues: ['c'], concurrency: 5 }));
    // The cancel chooses every pending job at once, then cancels them one by one while the
    // workers claim and start them.
    const cancel = tm.cancelJobs({ queue: 'c', status: 'pending' }, { batchSize: JOBS });
    await Promise.all(workers.map((w) => w.start()));
    const outcome = await cancel;
    await waitFor('no job to be in flight', async () =>
      (await countRows(tm, 'jobs', `status not in ('completed', 'cancelled')`)) === 0 ? true : null,
    );
    await Promise.all(workers.map((w) => w.stop()));

    const cancelled = await countRows(tm, 'jobs', `status = 'cancelled'`);
    const startedThenCancelled = [];
    for (const id of started)
      if ((await tm.getJob(id))?.status === 'cancelled') startedThenCancelled.push(id);
    assert.deepEqual(startedThenCancelled, [], 'no job whose handler started ends cancelled');
    assert.equal(outcome.done, cancelled, 'the cancel changed only jobs that were pending');
    assert.equal(
      started.size + cancelled,
      ids.length,
      'every job either ran or was cancelled before it started',
    );
    t.diagnostic(
      `${outcome.done} cancelled, ${outcome.refused.changed ?? 0} left as changed, ${started.size} ran`,
    );
  });
});
