import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { fixtureStarter, useProcessSuite, type WorkerProcess } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/batch-worker.ts', import.meta.url));
const JOBS = 1_500;
const KILLS = 3;

// Separate processes share a database only through PostgreSQL: registered when the run covers pg.
if (TEST_DRIVERS.includes('pg')) {
  describe('batch handlers under kills, two worker processes [pg only]', () => {
    const suite = useProcessSuite(async (tm, schema) => {
      tm.createQueue({ name: 'rows' });
      await rawQuery(
        tm,
        `create table "${schema}".effects (job_id bigint not null, worker text not null, attempt int, batch text)`,
      );
    });
    const { schema, workers } = suite;

    test('every job of every batch completes, with its own batch’s output, through SIGKILLs mid-batch', {
      timeout: 180_000,
    }, async () => {
      const start = fixtureStarter(schema, FIXTURE, workers);
      const live = [await start(), await start()];
      await suite.tm.addJobs(Array.from({ length: JOBS }, (_, n) => ({ queue: 'rows', data: { n } })));
      for (let kill = 0; kill < KILLS; kill++) {
        await sleep(300);
        const victim = live.shift() as WorkerProcess;
        victim.kill('SIGKILL');
        await victim.exited;
        live.push(await start());
      }
      const done = await waitFor(
        'every job to complete',
        async () => {
          const [row] = await rawQuery<{ n: number }>(
            suite.tm,
            `select count(*)::int as n from "${schema}".jobs where status = 'completed'`,
          );
          return row.n === JOBS ? row : null;
        },
        { timeoutMs: 120_000, intervalMs: 200 },
      );
      assert.equal(done.n, JOBS);
      const jobs = await rawQuery<{ id: string; output: string; attempts: number }>(
        suite.tm,
        `select id::text as id, output #>> '{}' as output, attempts from "${schema}".jobs`,
      );
      const effects = await rawQuery<{ job_id: string; batch: string; attempt: number }>(
        suite.tm,
        `select job_id::text as job_id, batch, attempt from "${schema}".effects`,
      );
      const ranIn = new Map<string, Set<string>>();
      for (const effect of effects) {
        const batches = ranIn.get(effect.job_id) ?? new Set<string>();
        batches.add(effect.batch);
        ranIn.set(effect.job_id, batches);
      }
      for (const job of jobs) {
        assert.ok(ranIn.get(job.id)?.has(job.output), `job ${job.id}'s output names a batch it ran in`);
      }
      const sizes = new Map<string, number>();
      for (const effect of effects) sizes.set(effect.batch, (sizes.get(effect.batch) ?? 0) + 1);
      assert.ok(Math.max(...sizes.values()) <= 20, 'no batch is over maxSize');
      assert.ok(
        jobs.some((job) => job.attempts > 1),
        'some batch was killed mid-run and its jobs recovered (more than one attempt)',
      );
    });
  });
}
