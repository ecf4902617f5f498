import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tidemark } from '../../src/index.js';
import { sqlState } from '../../src/storage/database-errors.js';
import { driverOf, freshSchema, rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred } from '../support/jobs.js';

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
    // The embedded instance is shared by the file's engines: count what this one adds.
    const before = await preparedHere(tm);
    await workOneJob(tm);
    assert.equal(await preparedHere(tm), before);
  });

  // The same work with the default prepares Tidemark's statements on the one connection (on
  // the embedded database, on its instance): what the test above would see if the option were ignored.
  test('by default the statements are prepared once per connection', async () => {
    // A schema never used: statement names carry theirs, so none is prepared on the instance yet.
    const tm = await open({ poolSize: 1, schema: freshSchema() });
    const before = await preparedHere(tm);
    await workOneJob(tm);
    assert.ok((await preparedHere(tm)) - before > 5, 'the default prepares named statements');
  });

  if (kind === 'pglite') {
    test('a statement the instance lost (a caller deallocated it) is prepared again', async () => {
      const tm = await open();
      tm.createQueue({ name: 'q' });
      await tm.addJob({ queue: 'q' });
      // This engine's statements alone (their text names its schema): the instance is shared with
      // other files' engines, and each of them would lose a transaction to learn of it.
      const lost = await rawQuery<{ name: string }>(
        tm,
        'select name from pg_prepared_statements where statement like $1',
        [`%"${tm.schema}".%`],
      );
      assert.ok(lost.length > 0, 'the add prepared statements naming the schema');
      for (const { name } of lost) await rawQuery(tm, `deallocate "${name}"`);
      const { id } = await tm.addJob({ queue: 'q' });
      assert.equal((await tm.getJob(id))?.status, 'pending');
    });

    test('statements the instance lost, met inside transactions: the first aborts its own, every other is prepared again', async () => {
      const tm = await open();
      const driver = driverOf(tm);
      const probes = ['a', 'b', 'c'].map((n) => ({
        name: `probe_lost_${n}_${tm.schema}`,
        text: `select '${n}'::text as n, $1::int as k`,
      }));
      for (const probe of probes) await driver.query(probe, [1]);
      // What a caller's DEALLOCATE ALL does, to this test's statements alone (the instance is shared).
      for (const { name } of probes) await driver.exec(`deallocate "${name}"`);
      const inTransaction = (probe: (typeof probes)[number]) =>
        driver.transaction(async (tx) => (await tx.query<{ n: string }>(probe, [2])).rows[0].n);
      await assert.rejects(inTransaction(probes[0]), (error) => sqlState(error) === '26000');
      assert.equal(await inTransaction(probes[1]), 'b');
      assert.equal(await inTransaction(probes[2]), 'c');
      assert.equal(await inTransaction(probes[0]), 'a');
    });

    test('a statement the session has already under its name (another copy of Tidemark on the instance) is run as it is', async () => {
      const tm = await open();
      const driver = driverOf(tm);
      const name = `probe_shared_${tm.schema}`;
      await driver.exec(`prepare ${name}(int) as select 10 / $1 as q`);
      assert.deepEqual((await driver.query({ name, text: 'select 10 / $1::int as q' }, [2])).rows, [
        { q: 5 },
      ]);
      assert.deepEqual((await driver.query({ name, text: 'select 10 / $1::int as q' }, [5])).rows, [
        { q: 2 },
      ]);
    });

    test("a statement outside a transaction waits for another caller's transaction and is not part of it", async () => {
      const tm = await open();
      tm.createQueue({ name: 'q' });
      await tm.addJob({ queue: 'q' });
      const driver = driverOf(tm);
      const opened = deferred();
      const held = deferred();
      const rolledBack = driver
        .transaction(async (tx) => {
          await tx.query('select 1');
          opened.resolve();
          await held.promise;
          throw new Error('roll back');
        })
        .catch((error: Error) => error.message);
      await opened.promise;
      // Named (prepared) on the instance while the transaction is open.
      const added = tm.addJob({ queue: 'q', data: { late: true } });
      held.resolve();
      assert.equal(await rolledBack, 'roll back');
      const { id } = await added;
      assert.deepEqual(
        (await tm.getJob(id))?.data,
        { late: true },
        'the job outlived the rolled-back transaction',
      );
    });

    test('a prepared statement that fails gives the database error; inside a transaction it rolls the transaction back', async () => {
      const tm = await open();
      const driver = driverOf(tm);
      const table = `"${tm.schema}".prepared_probe`;
      await driver.exec(`create table ${table} (n int)`);
      const insert = { name: `probe_insert_${tm.schema}`, text: `insert into ${table} values ($1)` };
      const divide = { name: `probe_divide_${tm.schema}`, text: 'select 1 / $1::int as q' };
      await assert.rejects(driver.query(divide, [0]), (error) => sqlState(error) === '22012');
      assert.deepEqual(
        (await driver.query(divide, [1])).rows,
        [{ q: 1 }],
        'the statement runs after its failure',
      );
      await assert.rejects(
        driver.transaction(async (tx) => {
          await tx.query(insert, [1]);
          await tx.query(divide, [0]);
        }),
        (error) => sqlState(error) === '22012',
      );
      await driver.query(insert, [2]);
      const rows = await rawQuery<{ n: number }>(tm, `select n from ${table}`);
      assert.deepEqual(rows, [{ n: 2 }], 'the failed transaction left nothing');
      const named = await rawQuery<{ n: number }>(
        tm,
        'select count(*)::int as n from pg_prepared_statements where name = any($1)',
        [[insert.name, divide.name]],
      );
      assert.equal(named[0].n, 2, 'both ran prepared');
    });
  }
});
