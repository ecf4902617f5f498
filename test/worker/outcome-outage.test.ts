import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import type { Logger, Tidemark } from '../../src/index.js';
import type { AttemptOutcome } from '../../src/storage/storage.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { outcomeBacklogBound } from '../../src/worker/slots.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Make the engine's finishing writes fail as they do while the database is unreachable, until
 * `up()`. Only these writes: heartbeats and the maintenance tick still reach the database,
 * which is what lets a lapsed lock be recovered (and shows whether it lapsed).
 */
function outage(tm: Tidemark) {
  const storage = engineOf(tm).storage;
  const finishAttempts = storage.attempts.finishAttempts.bind(storage);
  const state = { down: true, failedWrites: 0 };
  storage.attempts.finishAttempts = async (outcomes: AttemptOutcome[]) => {
    if (state.down) {
      state.failedWrites++;
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    }
    return finishAttempts(outcomes);
  };
  return {
    state,
    up: () => {
      state.down = false;
    },
  };
}

/**
 * Run one job through a worker with a long lock, so the first statements' planning (over a
 * second of a blocked event loop on a fresh PGlite) is behind the short-lock worker under test.
 */
async function warmUp(tm: Tidemark): Promise<void> {
  const worker = fastWorker(tm);
  await worker.start();
  const { id } = await tm.addJob({ queue: 'held', data: -1 });
  await waitForStatus(tm, id, 'completed');
  await worker.stop();
}

function recordingLogger() {
  const records: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    records.push({ level, message, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, records };
}

describeEachDriver('outcomes held while the database does not take them', ({ open }) => {
  test('a settled outcome is kept, its lock extended, and written once writes pass again', async () => {
    const tm = await open({ logger: recordingLogger().logger });
    let runs = 0;
    tm.createQueue({
      name: 'held',
      maxAttempts: 1,
      handler: async (job) => {
        runs++;
        return { done: job.data };
      },
    });
    await warmUp(tm);
    const db = outage(tm);
    const added = await tm.addJobs(Array.from({ length: 5 }, (_, n) => ({ queue: 'held', data: n })));
    const ids = added.map((r) => r.id);
    // A two-second lock: without heartbeats for held outcomes, the maintenance tick (every
    // 0.1 s) recovers the jobs as stalled before the writes pass, and with one attempt
    // allowed they end failed.
    const worker = fastWorker(tm, { concurrency: 5, lockSeconds: 2 });
    await worker.start();
    await waitFor('every handler to have finished', () => runs === ids.length + 1);
    const firstLocks = await Promise.all(
      ids.map(async (id) => (await tm.getJob(id))?.lockedUntil?.getTime()),
    );
    assert.ok(
      firstLocks.every((t) => typeof t === 'number'),
      'the jobs are still locked while their outcomes wait',
    );
    await waitFor(
      'every lock to outlive its expiry at settle time while the writes fail',
      async () => {
        const now = Date.now();
        const jobs = await Promise.all(ids.map((id) => tm.getJob(id)));
        for (const job of jobs)
          assert.equal(job?.status, 'active', `job ${job?.id} left active during the outage`);
        return (
          db.state.failedWrites > 1 &&
          jobs.every((job, i) => {
            const expiry = firstLocks[i] as number;
            return now > expiry && (job?.lockedUntil?.getTime() ?? 0) > expiry;
          })
        );
      },
      { timeoutMs: 20_000 },
    );
    db.up();
    for (const id of ids) {
      const job = await waitFor('the held outcome to be written', async () => {
        const job = await tm.getJob(id);
        return job?.status === 'active' ? null : job;
      });
      assert.deepEqual([job.status, job.attempts], ['completed', 1], `job ${id}`);
    }
    assert.equal(runs, ids.length + 1, 'each handler ran once (and the warm-up job once)');
  });

  test('claims pause while a bounded backlog of outcomes waits to be written, and resume once it is', async () => {
    const tm = await open({ logger: recordingLogger().logger });
    const runs = new Map<string, number>();
    tm.createQueue({
      name: 'many',
      maxAttempts: 1,
      handler: (job) => {
        runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
      },
    });
    const db = outage(tm);
    const bound = outcomeBacklogBound(10);
    assert.equal(bound, 2_000, 'two finishing statements of outcomes');
    const total = bound + 200;
    await tm.addJobs(Array.from({ length: total }, () => ({ queue: 'many' })));
    const worker = fastWorker(tm, { concurrency: 10, prefetch: 0, lockSeconds: 30 });
    const internals = worker as unknown as {
      slots: { writing: Map<string, unknown> };
      wakeup: { waitingForRoom: boolean };
    };
    await worker.start();
    // The claim loop waits for room with no timer: once it waits here, it claims nothing more
    // until outcomes are written.
    await waitFor(
      'the claim loop to wait on the backlog',
      () => internals.slots.writing.size >= bound && internals.wakeup.waitingForRoom,
      { timeoutMs: 60_000 },
    );
    const counts = async () => {
      const rows = await runnerOf(engineOf(tm).storage).driver.query<{ status: string; n: number }>(
        `select status, count(*)::int as n from "${tm.schema}".jobs group by status`,
      );
      return Object.fromEntries(rows.rows.map((r) => [r.status, r.n]));
    };
    const held = await counts();
    assert.ok(
      held.active <= bound + 2 * 10,
      `at most the bound plus a claim in flight: ${JSON.stringify(held)}`,
    );
    assert.ok(held.pending >= total - bound - 20, JSON.stringify(held));
    db.up();
    await waitFor('every job to complete', async () => (await counts()).completed === total, {
      timeoutMs: 60_000,
    });
    assert.deepEqual([...new Set(runs.values())], [1], 'each handler ran once');
    assert.equal(runs.size, total);
  });

  test('a stopping worker gives held outcomes up after its shutdown timeout, and says so', async () => {
    const { logger, records } = recordingLogger();
    const tm = await open({ logger });
    let runs = 0;
    tm.createQueue({
      name: 'held',
      maxAttempts: 1,
      handler: async () => {
        runs++;
      },
    });
    const db = outage(tm);
    const { id } = await tm.addJob({ queue: 'held' });
    const worker = fastWorker(tm, { lockSeconds: 30 });
    await worker.start();
    await waitFor(
      'the handler to have finished and a write to have failed',
      () => runs === 1 && db.state.failedWrites > 0,
    );
    await worker.stop({ timeoutSeconds: 0.3 });
    const gaveUp = records.filter(
      (r) => r.level === 'error' && r.message.startsWith('gave up writing the outcomes'),
    );
    assert.equal(gaveUp.length, 1, JSON.stringify(records));
    assert.deepEqual(gaveUp[0].fields?.jobIds, [id]);
    // Nothing was written: the job is still the attempt's, until its lock lapses.
    assert.equal((await tm.getJob(id))?.status, 'active');
  });
});
