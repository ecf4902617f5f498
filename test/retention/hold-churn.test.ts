import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate } from 'node:timers/promises';
import { JobNotFoundError, type SweepOutcome, silentLogger, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred } from '../support/jobs.js';

/**
 * Holds placed in a tight loop while a sweep and a manual purge run. Each hold changes the
 * retention gate; a batch must still make progress (not give up after retrying), and must
 * never delete a job a hold named before the batch ran.
 */
describeEachDriver('deletion under hold churn', ({ open }) => {
  /** `rows` finished single-job trees of `queue`; due now when `due`, else kept by their windows. */
  async function finished(tm: Tidemark, queue: string, rows: number, due: boolean): Promise<string[]> {
    const s = `"${tm.schema}"`;
    const inserted = await rawQuery<{ id: string }>(
      tm,
      `insert into ${s}.jobs (queue, status, data, finished_at, purge_after, retention)
         select $1, 'completed', '{}', now() - interval '40 days',
                case when $3::boolean then now() - interval '10 days' + g * interval '1 millisecond' end,
                case when $3::boolean then '{"completed": 2592000}'::jsonb else '{}'::jsonb end
           from generate_series(1, $2::int) g
      returning id::text as id`,
      [queue, rows, due],
    );
    return inserted.map((r) => r.id);
  }

  test('a sweep and removeJobs both delete while holds are placed in a tight loop, and no held job goes', async () => {
    const tm = await open({ logger: silentLogger });
    const swept = await finished(tm, 'swept', 3_000, true);
    const purged = await finished(tm, 'purged', 3_000, false);
    const candidates = [...swept, ...purged];

    let done = false;
    const held = new Set<string>();
    const warmedUp = deferred();
    // Each loop places one hold after another. A turn of the event loop between two, as
    // between two requests to the dashboard: on PGlite, statements resolve on microtasks,
    // and a loop without one would keep every timer and every other caller waiting.
    const churn = async (seed: number) => {
      for (let n = seed; !done; n += 7) {
        await setImmediate();
        const id = candidates[(n * 7919) % candidates.length];
        try {
          await tm.holdJobs({ ids: [id], reason: `churn ${n}` });
          held.add(id);
          if (held.size >= 30) warmedUp.resolve();
        } catch (error) {
          // The job was deleted before the hold reached it.
          if (!(error instanceof JobNotFoundError)) throw error;
        }
      }
    };
    const loops = [churn(0), churn(3), churn(5)];
    // The loops are running before the deletions start.
    await warmedUp.promise;

    let result: [SweepOutcome, number];
    try {
      result = await Promise.all([
        tm.sweep({ batchSize: 100 }),
        tm.removeJobs({ queue: 'purged', batchSize: 100 }),
      ]);
    } finally {
      done = true;
      await Promise.all(loops);
    }
    const [sweep, removed] = result;
    assert.equal(sweep.error, undefined);
    assert.ok(sweep.jobs > 0, 'the sweep deleted rows');
    assert.ok(removed > 0, 'removeJobs deleted rows');

    // What is left is exactly what was held: every unheld job went, no held job did.
    const left = await rawQuery<{ id: string }>(tm, `select id::text as id from "${tm.schema}".jobs`);
    assert.deepEqual(left.map((r) => r.id).sort(), [...held].sort());
    assert.equal(sweep.jobs + removed + held.size, candidates.length);
  });
});
