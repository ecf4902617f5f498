import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidOptionError,
  JobStatus,
  type Queryable,
  TransactionClosedError,
  TransactionMisuseError,
} from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';

class Rollback extends Error {}

describeEachDriver(
  'tm.transaction: a transaction of the engine’s own database for { tx }',
  ({ kind, open }) => {
    /** An application table beside Tidemark's, in the test's schema (dropped with it). */
    async function withOrders(tm: Awaited<ReturnType<typeof open>>): Promise<string> {
      const table = `"${tm.schema}".orders`;
      await rawQuery(tm, `create table ${table} (id int primary key)`);
      return table;
    }

    test('commits the application’s rows and the jobs together, and resolves with the callback’s value', async () => {
      const tm = await open();
      const ran: unknown[] = [];
      tm.createQueue({ name: 'q', handler: (job) => void ran.push(job.data) });
      const orders = await withOrders(tm);
      const value = await tm.transaction(async (tx) => {
        await tx.query(`insert into ${orders} (id) values ($1)`, [1]);
        const one = await tm.addJob({ queue: 'q', data: 'one' }, { tx });
        // A batch with a dedupe key takes a savepoint inside the transaction.
        const more = await tm.addJobs(
          [
            { queue: 'q', data: 'two', idempotencyKey: { key: 'k', ttlSeconds: 3_600 } },
            { queue: 'q', data: 'three' },
          ],
          { tx },
        );
        const { rows } = await tx.query<{ n: number }>(
          `select count(*)::int as n from "${tm.schema}".jobs where queue = 'q'`,
        );
        return { ids: [one.id, ...more.map((r) => r.id)], seenInside: rows[0].n };
      });
      assert.equal(value.seenInside, 3);
      assert.deepEqual(await rawQuery(tm, `select id from ${orders}`), [{ id: 1 }]);
      await fastWorker(tm).start();
      for (const id of value.ids) await waitForStatus(tm, id, JobStatus.COMPLETED);
      assert.deepEqual([...ran].sort(), ['one', 'three', 'two']);
    });

    test('rolls everything back when the callback throws, and rejects with its error', async () => {
      const tm = await open();
      tm.createQueue({ name: 'q' });
      const orders = await withOrders(tm);
      const ids: string[] = [];
      await assert.rejects(
        tm.transaction(async (tx) => {
          await tx.query(`insert into ${orders} (id) values ($1)`, [1]);
          ids.push(
            (await tm.addJob({ queue: 'q', idempotencyKey: { key: 'k', ttlSeconds: 3_600 } }, { tx })).id,
          );
          ids.push(...(await tm.addJobs([{ queue: 'q' }, { queue: 'q' }], { tx })).map((r) => r.id));
          throw new Rollback('no');
        }),
        Rollback,
      );
      assert.equal(ids.length, 3);
      for (const id of ids) assert.equal(await tm.getJob(id), null);
      assert.equal(await countRows(tm, 'jobs'), 0);
      assert.equal(await countRows(tm, 'unique_locks'), 0);
      assert.deepEqual(await rawQuery(tm, `select id from ${orders}`), []);
      // The engine goes on: the key is free again, and the next transaction commits.
      const again = await tm.transaction(
        async (tx) =>
          await tm.addJob({ queue: 'q', idempotencyKey: { key: 'k', ttlSeconds: 3_600 } }, { tx }),
      );
      assert.equal(again.deduplicated, false);
      assert.equal((await tm.getJob(again.id))?.status, JobStatus.PENDING);
    });

    test('a tx kept past its callback is refused with TransactionClosedError, and nothing is written', async () => {
      const tm = await open();
      tm.createQueue({ name: 'q' });
      let kept: Queryable | null = null;
      await tm.transaction((tx) => {
        kept = tx;
      });
      await assert.rejects(
        tm.addJob({ queue: 'q' }, { tx: kept as unknown as Queryable }),
        (e: unknown) => e instanceof TransactionClosedError && e.code === 'TRANSACTION_CLOSED',
      );
      await assert.rejects((kept as unknown as Queryable).query('select 1'), TransactionClosedError);
      assert.equal(await countRows(tm, 'jobs'), 0);
    });

    test('a callback that is not a function is refused with InvalidOptionError naming fn', async () => {
      const tm = await open();
      await assert.rejects(
        tm.transaction('begin' as never),
        (e: unknown) => e instanceof InvalidOptionError && e.field === 'fn',
      );
    });

    if (kind === 'pglite') {
      test('on the embedded database, a call without { tx } inside is refused rather than waiting forever', async () => {
        const tm = await open();
        tm.createQueue({ name: 'q' });
        await assert.rejects(
          tm.transaction(() => tm.addJob({ queue: 'q' })),
          TransactionMisuseError,
        );
        assert.equal(await countRows(tm, 'jobs'), 0);
      });
    }
  },
);
