import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger } from '../../src/index.js';
import type { NodePostgresDriver } from '../../src/storage/driver/node-postgres.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { describeEachDriver, describePostgresOnly } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

/**
 * A completion transaction (ctx.completionTx) is the attempt's own statement, not one of the
 * finish buffer's batches: freeing its slot before it commits let a worker with fast handlers
 * queue up to a thousand of them for the pool, and its heartbeat waited behind them all: on a
 * loaded machine the beats of a live worker landed over a lock period late and its jobs were
 * recovered as stalled (test/faults/crash.test.ts).
 */
describeEachDriver('completion transactions hold their slots until they commit', ({ open }) => {
  test('a worker has no more completion transactions in flight than its concurrency', async () => {
    const tm = await open({ logger: silentLogger });
    const gate = deferred();
    let handled = 0;
    let hooks = 0;
    tm.createQueue({
      name: 'q',
      handler: (_job, ctx) => {
        handled++;
        ctx.completionTx(async () => {
          hooks++;
          await gate.promise;
        });
      },
    });
    await tm.addJobs(Array.from({ length: 8 }, () => ({ queue: 'q' })));
    // Every job claimed at once, so starting the next one needs no statement.
    const worker = fastWorker(tm, { concurrency: 2, prefetch: 8 });
    await worker.start();
    try {
      // On PGlite's one connection the second completion waits for the first.
      await waitFor('a completion hook to be held', () => hooks >= 1);
      await sleep(100);
      assert.equal(handled, 2, 'no handler starts while both slots wait on their completions');
    } finally {
      gate.resolve();
    }
    await waitFor('every job to complete', () => handled === 8 && hooks === 8);
    await worker.stop();
  });
});

// PostgreSQL only: PGlite has one connection and no pool to queue in.
describePostgresOnly('completion transactions and the connection pool', ({ open }) => {
  test('the pool queue a heartbeat waits in holds no more completions than the concurrency', async () => {
    const tm = await open({ logger: silentLogger, poolSize: 2 });
    const { pool } = runnerOf(engineOf(tm).storage).driver as NodePostgresDriver;
    let hooks = 0;
    let mostWaiting = 0;
    tm.createQueue({
      name: 'q',
      handler: (_job, ctx) => {
        ctx.completionTx(() => {
          hooks++;
          mostWaiting = Math.max(mostWaiting, pool.waitingCount);
        });
      },
    });
    const jobs = 400;
    await tm.addJobs(Array.from({ length: jobs }, () => ({ queue: 'q' })));
    // A deep buffer of instant handlers: each slot freed before its completion committed
    // started the next job at once, and the whole buffer queued for the two connections.
    const concurrency = 4;
    const worker = fastWorker(tm, { concurrency, prefetch: 200 });
    await worker.start();
    await waitFor('every completion to have run', () => hooks === jobs, { timeoutMs: 30_000 });
    await worker.stop();
    // Besides the completions: a claim, the tick, the beat's two statements.
    assert.ok(
      mostWaiting <= concurrency + 4,
      `at most ${concurrency + 4} waited for a connection, not ${mostWaiting}`,
    );
  });
});
