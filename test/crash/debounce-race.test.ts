import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { waitFor } from '../support/wait-for.js';
import { FOLD_SECONDS, ROUNDS } from './fixtures/fold-keys.js';
import { fixtureStarter, useProcessSuite } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/fold-adder.ts', import.meta.url));
const PROCESSES = 4;

interface Add {
  key: string;
  id: string;
  folded: boolean;
}

// Separate processes share a database only through PostgreSQL: registered when the run covers pg.
if (TEST_DRIVERS.includes('pg')) {
  describe('debounce and throttle adds raced by four processes while a worker runs [pg only]', () => {
    const suite = useProcessSuite(async (tm, schema) => {
      tm.createQueue({ name: 'fold', handler: () => new Promise((resolve) => setTimeout(resolve, 5)) });
      await rawQuery(tm, `create table "${schema}".race_go (go int)`);
    });
    const { schema, workers: processes } = suite;

    test('never two waiting jobs of a key, each job made by exactly one add, throttled starts a period apart', {
      timeout: 120_000,
    }, async () => {
      const start = fixtureStarter(schema, FIXTURE, processes);
      for (let i = 0; i < PROCESSES; i++) await start();
      const worker = suite.tm.worker({
        concurrency: 4,
        pollIntervalSeconds: 0.01,
        sweep: false,
        uniqueLockSweep: false,
      });
      await worker.start();
      await rawQuery(suite.tm, `insert into "${schema}".race_go values (1)`);
      // Sampled while the adds race: a trailing debounce or a throttle never has two jobs
      // waiting unstarted.
      const doubled: unknown[] = [];
      let racing = true;
      const sampler = (async () => {
        while (racing) {
          doubled.push(
            ...(await rawQuery(
              suite.tm,
              `select fold_key, count(*)::int as n from "${schema}".jobs
                where status = 'pending' and started_at is null and fold_key not like 'debounce:l%'
                group by fold_key having count(*) > 1`,
            )),
          );
        }
      })();
      const lines = await Promise.all(processes.map((p) => p.waitForLine((line) => line.startsWith('['))));
      racing = false;
      await sampler;
      await waitFor('every job to finish', async () => {
        const [left] = await rawQuery<{ n: number }>(
          suite.tm,
          `select count(*)::int as n from "${schema}".jobs where status <> 'completed'`,
        );
        return left.n === 0;
      });
      await worker.stop();
      assert.deepEqual(doubled, [], 'no sample saw two waiting jobs of one key');

      const adds = lines.flatMap((line) => JSON.parse(line) as Add[]);
      assert.equal(adds.length, PROCESSES * ROUNDS);
      const jobs = await rawQuery<{ id: string; fold_key: string; created: number; started: number }>(
        suite.tm,
        `select id::text as id, fold_key, extract(epoch from created_at)::float8 as created,
                extract(epoch from started_at)::float8 as started
           from "${schema}".jobs order by jobs.id`,
      );
      const byId = new Map(jobs.map((job) => [job.id, job]));
      for (const add of adds)
        assert.equal(byId.get(add.id)?.fold_key, add.key, `add of ${add.key} names its job`);
      const made = adds.filter((add) => !add.folded).map((add) => add.id);
      assert.deepEqual(
        [...made].sort(),
        jobs.map((job) => job.id).sort(),
        'every job was made by exactly one add, and every add that made one says so',
      );
      // How many fold depends on the machine's pace against the windows; that some do is the point.
      assert.ok(made.length < adds.length, `adds folded (${made.length} jobs for ${adds.length} adds)`);
      for (const key of new Set(jobs.map((job) => job.fold_key))) {
        const ofKey = jobs.filter((job) => job.fold_key === key);
        const [kind, name] = key.split(':');
        const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]);
        if (kind === 'throttle') {
          const starts = ofKey.map((job) => job.started).sort((a, b) => a - b);
          const least = Math.min(...gaps(starts));
          assert.ok(least >= FOLD_SECONDS.throttle - 1e-6, `${key}: starts ${least} s apart`);
        } else if (name.startsWith('l')) {
          const least = Math.min(...gaps(ofKey.map((job) => job.created)));
          assert.ok(least >= FOLD_SECONDS.leading - 1e-6, `${key}: leading jobs ${least} s apart`);
        }
      }
    });
  });
}
