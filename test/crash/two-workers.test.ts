import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PG_URL, rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker, useCrashSuite } from './support.js';

const JOBS = 5_000;

// Separate processes share a database only through PostgreSQL: registered when the run covers pg.
if (TEST_DRIVERS.includes('pg')) {
  describe('two worker processes over 5,000 jobs [pg only]', () => {
    const suite = useCrashSuite(4);

    test('every job is completed exactly once', { timeout: 240_000 }, async () => {
      for (const name of ['worker-a', 'worker-b']) {
        suite.workers.push(startWorker({ url: PG_URL, schema: suite.schema, worker: name, mode: 'record' }));
      }
      await Promise.all(suite.workers.map((w) => w.waitForLine((line) => line === 'ready')));
      const ids: string[] = [];
      for (let i = 0; i < JOBS; i += 1_000) {
        const batch = await suite.tm.addJobs(
          Array.from({ length: 1_000 }, (_, k) => ({ queue: 'crash', data: { n: i + k } })),
        );
        ids.push(...batch.map((r) => r.id));
      }
      assert.equal(new Set(ids).size, JOBS);
      await waitFor(
        'every job to be completed',
        async () => {
          const [row] = await rawQuery<{ n: number }>(
            suite.tm,
            `select count(*)::int as n from "${suite.schema}".jobs where status = 'completed'`,
          );
          return row.n === JOBS;
        },
        { timeoutMs: 180_000, intervalMs: 200 },
      );
      const [jobs] = await rawQuery<{ total: number; once: number }>(
        suite.tm,
        `select count(*)::int as total, count(*) filter (where attempts = 1)::int as once from "${suite.schema}".jobs`,
      );
      assert.deepEqual(jobs, { total: JOBS, once: JOBS });
      const [effects] = await rawQuery<{ rows: number; jobs: number }>(
        suite.tm,
        `select count(*)::int as rows, count(distinct job_id)::int as jobs from "${suite.schema}".effects`,
      );
      assert.deepEqual(effects, { rows: JOBS, jobs: JOBS }, 'one side effect per job, none twice');
      const [missing] = await rawQuery<{ n: number }>(
        suite.tm,
        `select count(*)::int as n from "${suite.schema}".jobs j
          where not exists (select 1 from "${suite.schema}".effects e where e.job_id = j.id)`,
      );
      assert.equal(missing.n, 0);
      const perWorker = await rawQuery<{ worker: string; n: number }>(
        suite.tm,
        `select worker, count(*)::int as n from "${suite.schema}".effects group by worker order by worker`,
      );
      assert.deepEqual(
        perWorker.map((r) => r.worker),
        ['worker-a', 'worker-b'],
        'both processes took part',
      );
      // both stop gracefully
      for (const w of suite.workers) w.kill('SIGTERM');
      for (const w of suite.workers) assert.deepEqual(await w.exited, { code: 0, signal: null });
    });
  });
}
