import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/** Tidemark's statements prepared on the session that answers `rawQuery` (its only one with poolSize 1). */
async function preparedHere(tm: Tidemark): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(
    tm,
    "select count(*)::int as n from pg_prepared_statements where name like 'tm\\_%'",
  );
  return row.n;
}

/** Enqueue, claim, run, write the outcome and read it back: statements outside and inside transactions. */
async function workOneJob(tm: Tidemark): Promise<void> {
  tm.createQueue({ name: 'q', handler: async (job) => ({ doubled: (job.data as { n: number }).n * 2 }) });
  const worker = tm.worker({
    concurrency: 1,
    pollIntervalSeconds: 0.05,
    sweep: false,
    uniqueLockSweep: false,
  });
  await worker.start();
  try {
    const { id } = await tm.addJob({ queue: 'q', data: { n: 21 } });
    assert.deepEqual(await tm.result(id, { timeoutSeconds: 10 }), { doubled: 42 });
    await tm.cancelJob(
      (await tm.addJob({ queue: 'q', data: { n: 1 }, runAt: new Date(Date.now() + 60_000) })).id,
    );
  } finally {
    await worker.stop();
  }
}

describeEachDriver('preparedStatements', ({ kind, open }) => {
  test('false: every statement runs unnamed, none is prepared on the connection', async () => {
    const tm = await open({ preparedStatements: false, poolSize: 1 });
    await workOneJob(tm);
    assert.equal(await preparedHere(tm), 0);
  });

  if (kind === 'pg') {
    // The same work with the default prepares Tidemark's statements on the one connection:
    // what the test above would see if the option were ignored.
    test('by default the statements are prepared once per connection', async () => {
      const tm = await open({ poolSize: 1 });
      await workOneJob(tm);
      assert.ok((await preparedHere(tm)) > 5, 'the default prepares named statements');
    });
  }
});
