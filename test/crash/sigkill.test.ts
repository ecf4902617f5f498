import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PG_URL, rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';
import { startWorker, useCrashSuite } from './support.js';

// Separate processes share a database only through PostgreSQL: registered when the run covers pg.
if (TEST_DRIVERS.includes('pg')) {
  describe('a worker process killed with SIGKILL mid-job [pg only]', () => {
    const suite = useCrashSuite(2);

    test("another worker's maintenance tick recovers the job and completes it", {
      timeout: 120_000,
    }, async () => {
      const victim = startWorker({
        url: PG_URL,
        schema: suite.schema,
        worker: 'victim',
        mode: 'hang',
        lockSeconds: 1,
      });
      suite.workers.push(victim);
      await victim.waitForLine((line) => line === 'ready');
      const { id } = await suite.tm.addJob({ queue: 'crash', data: { important: true } });
      await victim.waitForLine((line) => line === `started ${id}`);
      victim.kill('SIGKILL');
      assert.deepEqual(await victim.exited, { code: null, signal: 'SIGKILL' });
      // Dead mid-job: the row still says it is running there.
      const held = await suite.tm.getJob(id);
      assert.equal(held?.status, 'active');
      assert.equal(held?.lockedBy, 'victim');
      // No stop ran, so its row stays; three missed beats (of a third of a second) show it gone.
      await waitFor('the killed worker shown as gone', async () =>
        (await suite.tm.listWorkers()).some((w) => w.id === 'victim' && w.gone),
      );

      const rescuer = startWorker({ url: PG_URL, schema: suite.schema, worker: 'rescuer', mode: 'record' });
      suite.workers.push(rescuer);
      await rescuer.waitForLine((line) => line === 'ready');
      const job = await waitFor(
        'the job to be recovered and completed',
        async () => {
          const row = await suite.tm.getJob(id);
          return row?.status === 'completed' ? row : null;
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      assert.equal(job.attempts, 2);
      assert.equal(job.error?.name, 'StalledJobError');
      assert.equal(job.error?.worker, 'victim');
      const effects = await rawQuery<{ worker: string; attempt: number }>(
        suite.tm,
        `select worker, attempt from "${suite.schema}".effects where job_id = $1::bigint`,
        [id],
      );
      assert.deepEqual(effects, [{ worker: 'rescuer', attempt: 2 }]);
      rescuer.kill('SIGTERM');
      assert.deepEqual(await rescuer.exited, { code: 0, signal: null });
      const ids = (await suite.tm.listWorkers()).map((w) => w.id);
      assert.ok(!ids.includes('rescuer'), 'a worker stopped by SIGTERM deletes its row');
      assert.ok(ids.includes('victim'), 'the killed one stays until the tick deletes it an hour later');
    });
  });
}
