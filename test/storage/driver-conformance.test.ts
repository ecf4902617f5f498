import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { TransactionMisuseError } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

describeEachDriver('driver conformance', ({ kind, open }) => {
  test('int8 values are strings, counts cast to int are numbers, timestamps are Dates', async () => {
    const tm = await open();
    const { driver } = runnerOf(engineOf(tm).storage);
    const { rows } = await driver.query<Record<string, unknown>>(
      `select 1::int8 as small, 9007199254740993::int8 as big, count(*) as counted,
              count(*)::int as n, now() as ts, '{"a":1}'::jsonb as doc, 1.5::float8 as f`,
    );
    const row = rows[0];
    assert.equal(row.small, '1');
    assert.equal(row.big, '9007199254740993');
    assert.equal(row.counted, '1');
    assert.equal(row.n, 1);
    assert.ok(row.ts instanceof Date);
    assert.deepEqual(row.doc, { a: 1 });
    assert.equal(row.f, 1.5);
    // the same inside a transaction
    const inTx = await driver.transaction(
      async (tx) => (await tx.query<{ id: unknown }>('select 5::int8 as id')).rows,
    );
    assert.deepEqual(inTx, [{ id: '5' }]);
  });

  test('jobs carry string ids and Date timestamps', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'ok' });
    const { id } = await tm.addJob({ queue: 'q' });
    assert.equal(typeof id, 'string');
    await fastWorker(tm).start();
    await tm.result(id);
    const job = await tm.getJob(id);
    assert.ok(job);
    assert.equal(typeof job.id, 'string');
    for (const field of ['runAt', 'createdAt', 'startedAt', 'finishedAt', 'purgeAfter'] as const) {
      assert.ok(job[field] instanceof Date, `${field} is a Date`);
    }
    assert.equal(typeof job.attempts, 'number');
    assert.equal(typeof job.priority, 'number');
  });

  test('queryTimed says when its statement was handed to the database: after the wait for its connection', async () => {
    // One connection on PostgreSQL; on PGlite the open transaction holds the instance.
    const tm = await open({ poolSize: 1 });
    const { driver } = runnerOf(engineOf(tm).storage);
    const release = deferred();
    let releasedAt = 0;
    const holding = driver.transaction(async (tx) => {
      await tx.query('select 1');
      await release.promise;
      releasedAt = performance.now();
    });
    await sleep(20);
    const calledAt = performance.now();
    const timed = driver.queryTimed<{ n: number }>({ text: 'select 2::int as n', name: 'tm_test_timed' }, []);
    await sleep(100);
    release.resolve();
    const [result] = await Promise.all([timed, holding]);
    assert.deepEqual(result.rows, [{ n: 2 }]);
    // Order alone: a timer of 100 ms may fire a fraction of a millisecond early on this clock.
    assert.ok(
      calledAt < releasedAt && releasedAt <= result.sentAt,
      `called at ${calledAt}, the connection freed at ${releasedAt}, sent at ${result.sentAt}`,
    );
  });

  test('exec runs several statements', async () => {
    const tm = await open();
    const { driver } = runnerOf(engineOf(tm).storage);
    await driver.exec(`create table "${tm.schema}".t (x int); insert into "${tm.schema}".t values (1), (2);`);
    const { rows } = await driver.query<{ n: number }>(`select count(*)::int as n from "${tm.schema}".t`);
    assert.equal(rows[0].n, 2);
  });

  test('transaction commits, and rolls back when its function throws', async () => {
    const tm = await open();
    const { driver } = runnerOf(engineOf(tm).storage);
    const t = `"${tm.schema}".t`;
    await driver.exec(`create table ${t} (x int)`);
    const value = await driver.transaction(async (tx) => {
      await tx.query(`insert into ${t} values (1)`);
      return 'committed';
    });
    assert.equal(value, 'committed');
    const boom = new Error('boom');
    await assert.rejects(
      driver.transaction(async (tx) => {
        await tx.query(`insert into ${t} values (2)`);
        throw boom;
      }),
      (e) => e === boom,
    );
    // and after a failed statement inside
    await assert.rejects(
      driver.transaction(async (tx) => {
        await tx.query(`insert into ${t} values (3)`);
        await tx.query('select 1/0');
      }),
    );
    const { rows } = await driver.query<{ x: number }>(`select x from ${t} order by x`);
    assert.deepEqual(rows, [{ x: 1 }]);
  });

  test('a NOTIFY in a rolled-back transaction is not delivered; a committed one is', async () => {
    const tm = await open();
    const { driver } = runnerOf(engineOf(tm).storage);
    const channel = `conformance_${tm.schema}`;
    const received: string[] = [];
    let ready = 0;
    const subscription = await driver.listen(
      channel,
      (payload) => received.push(payload),
      () => ready++,
    );
    try {
      assert.equal(ready, 1, 'onReady runs after subscribing');
      await assert.rejects(
        driver.transaction(async (tx) => {
          await tx.query('select pg_notify($1, $2)', [channel, 'rolled back']);
          throw new Error('roll back');
        }),
      );
      await driver.transaction(async (tx) => {
        await tx.query('select pg_notify($1, $2)', [channel, 'committed']);
      });
      await driver.query('select pg_notify($1, $2)', [channel, 'plain']);
      await waitFor('both notifications', () => received.length >= 2);
      assert.deepEqual(received, ['committed', 'plain']);
    } finally {
      await subscription.close();
    }
  });

  if (kind === 'pglite') {
    test('using the driver inside its own transaction rejects instead of hanging', async () => {
      const tm = await open();
      const { driver } = runnerOf(engineOf(tm).storage);
      await assert.rejects(
        driver.transaction(async () => {
          await driver.query('select 1');
        }),
        TransactionMisuseError,
      );
      await assert.rejects(
        driver.transaction(() => driver.transaction(async () => 1)),
        TransactionMisuseError,
      );
      await assert.rejects(
        driver.transaction(() => driver.listen('x', () => {})),
        TransactionMisuseError,
      );
      // the instance still works
      const { rows } = await driver.query<{ one: number }>('select 1 as one');
      assert.deepEqual(rows, [{ one: 1 }]);
    });
  }
});
