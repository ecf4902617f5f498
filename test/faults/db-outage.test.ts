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
  },
);
