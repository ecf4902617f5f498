import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../scripts/embedded-postgres.mjs';
import { type Job, type Logger, Tidemark } from '../../src/index.js';
import { deferred } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { describePg } from './support/pg.js';

/**
 * Finishing writes used to be retried for 100 + 500 + 2,000 + 5,000 ms and then given up; the
 * outage below outlasts that window from the moment the handlers finish.
 */
const FORMER_RETRY_WINDOW_MS = 7_600;
const JOBS = 10;

describePg(
  'a real PostgreSQL outage: the server shut down, then started again on its folder and port',
  () => {
    // A throwaway server of this test's own: the shared one must stay up for everyone else.
    let server: EmbeddedPostgres;
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);

    before(async () => {
      process.on('unhandledRejection', onRejection);
      server = await startEmbeddedPostgres({ database: 'outage' });
    });

    after(async () => {
      process.off('unhandledRejection', onRejection);
      await server?.stop();
    });

    test('handlers that finish while the server is down longer than the former retry window: every job completed, attempts 1', async (t) => {
      const records: { level: string; message: string }[] = [];
      const at = (level: string) => (message: string) => records.push({ level, message });
      const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
      const tm = await Tidemark.open({ database: server.url, schema: 'outage', logger, poolSize: 4 });
      try {
        const gate = deferred();
        let running = 0;
        let runs = 0;
        tm.createQueue({
          name: 'outage',
          maxAttempts: 1,
          handler: async (job) => {
            runs++;
            running++;
            await gate.promise;
            return { n: job.data };
          },
        });
        const ids = (
          await tm.addJobs(Array.from({ length: JOBS }, (_, n) => ({ queue: 'outage', data: n })))
        ).map((r) => r.id);
        // The lock outlasts the outage (claimed just before it, so at least 20 s from then): the
        // jobs must come back completed by their own worker, not recovered as stalled.
        const worker = tm.worker({
          concurrency: JOBS,
          lockSeconds: 20,
          tickIntervalSeconds: 0.5,
          pollIntervalSeconds: 0.1,
          sweep: false,
          uniqueLockSweep: false,
        });
        await worker.start();
        await waitFor('every handler to be running', () => running === JOBS);

        await server.halt();
        gate.resolve();
        const downSince = Date.now();
        // The one fixed wait of this test: the outage itself must last this long to prove anything.
        await sleep(FORMER_RETRY_WINDOW_MS + 1_000);
        await server.restart();
        const downMs = Date.now() - downSince;

        const jobs = await waitFor(
          'every job to be completed once the server is back',
          async () => {
            const all = await Promise.all(ids.map((id) => tm.getJob(id)));
            const ended = all.filter((j) => j && j.status !== 'active' && j.status !== 'completed');
            if (ended.length > 0)
              throw new Error(`jobs ended otherwise: ${JSON.stringify(ended.slice(0, 3))}`);
            return all.every((j) => j?.status === 'completed') ? (all as Job[]) : null;
          },
          { timeoutMs: 20_000, intervalMs: 100 },
        );
        for (const job of jobs) {
          assert.deepEqual([job.attempts, job.output], [1, { n: job.data }], `job ${job.id}`);
        }
        assert.equal(runs, JOBS, 'each handler ran once');
        assert.ok(
          records.some((r) => r.level === 'warn' && r.message.startsWith('could not write the outcomes')),
          'the outage was logged',
        );
        assert.deepEqual(
          records.filter((r) => r.message.startsWith('gave up')),
          [],
          'no outcome was given up',
        );
        await worker.stop();
        assert.deepEqual(rejections, []);
        t.diagnostic(`the server was down for ${downMs} ms`);
      } finally {
        await tm.close();
      }
    });

    test("an outage longer than the lock: the live worker wins over another engine's stalled recovery, every job completed, attempts 1, each run once", async (t) => {
      // Two engines on one database, each with a worker that ticks every 0.2 s (either may run
      // the recovery): the first runs every job; the second starts once they all run, so it can
      // take only what recovery hands back. The outage outlasts the 2-s lock by a few seconds.
      const LOCK_SECONDS = 2;
      const OUTAGE_MS = 4_500;
      const tmA = await Tidemark.open({ database: server.url, schema: 'lapse', poolSize: 4 });
      const tmB = await Tidemark.open({ database: server.url, schema: 'lapse', poolSize: 4 });
      try {
        // settled: one attempt, its handler returns while the server is down.
        // running: retries allowed, its handler returns only once the server is back.
        const settleGate = deferred();
        const runGate = deferred();
        const runs = new Map<string, number>();
        let running = 0;
        const handler = (gate: Promise<void>) => async (job: Job) => {
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          running++;
          await gate;
          return { n: job.data };
        };
        for (const tm of [tmA, tmB]) {
          tm.createQueue({ name: 'settled', maxAttempts: 1, handler: handler(settleGate.promise) });
          tm.createQueue({ name: 'running', maxAttempts: 3, handler: handler(runGate.promise) });
        }
        const ids = (
          await tmA.addJobs([
            ...Array.from({ length: JOBS }, (_, n) => ({ queue: 'settled', data: n })),
            ...Array.from({ length: JOBS }, (_, n) => ({ queue: 'running', data: n })),
          ])
        ).map((r) => r.id);
        const options = {
          concurrency: 2 * JOBS,
          lockSeconds: LOCK_SECONDS,
          tickIntervalSeconds: 0.2,
          pollIntervalSeconds: 0.1,
          sweep: false,
          uniqueLockSweep: false,
        } as const;
        const workerA = tmA.worker(options);
        await workerA.start();
        await waitFor('every handler to be running on the first engine', () => running === 2 * JOBS);
        const workerB = tmB.worker(options);
        await workerB.start();

        let recovered = 0;
        for (const tm of [tmA, tmB]) tm.on('maintenance:tick', (e) => (recovered += e.stalled));
        await server.halt();
        settleGate.resolve();
        // The one fixed wait: the outage must outlast the lock to prove anything.
        await sleep(OUTAGE_MS);
        await server.restart();
        // The other engine's tick the moment the server answers: the worst case for the live worker.
        await workerB.service('tick')?.runNow();
        await sleep(500);
        runGate.resolve();

        const jobs = await waitFor(
          'every job to be completed once the server is back',
          async () => {
            const all = await Promise.all(ids.map((id) => tmA.getJob(id)));
            const ended = all.filter(
              (j) => j && !['active', 'retry', 'pending', 'completed'].includes(j.status),
            );
            if (ended.length > 0)
              throw new Error(`jobs ended otherwise: ${JSON.stringify(ended.slice(0, 3))}`);
            return all.every((j) => j?.status === 'completed') ? (all as Job[]) : null;
          },
          { timeoutMs: 20_000, intervalMs: 100 },
        );
        for (const job of jobs) {
          assert.deepEqual([job.attempts, job.output], [1, { n: job.data }], `job ${job.id} (${job.queue})`);
        }
        assert.deepEqual(
          ids.filter((id) => runs.get(id) !== 1),
          [],
          'no handler ran twice',
        );
        await Promise.all([workerA.stop(), workerB.stop()]);
        assert.deepEqual(rejections, []);
        assert.equal(recovered, 0, 'no job was recovered as stalled');
        t.diagnostic(`lock ${LOCK_SECONDS} s, outage ${OUTAGE_MS} ms`);
      } finally {
        await Promise.all([tmA.close(), tmB.close()]);
      }
    });
  },
);
