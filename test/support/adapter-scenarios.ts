import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CallerTransaction, InvalidOptionError, type Tidemark } from '../../src/index.js';
import { dropSchema, openOn, TEST_DRIVERS } from './databases.js';

/** A library's transactions on the test server, for the scenarios below. */
export interface AdapterHarness {
  /** Run `fn` with the adapter's view of a library transaction, then commit it. */
  commit(fn: (tx: CallerTransaction) => Promise<void>): Promise<void>;
  /** Run `fn` with the adapter's view of a library transaction, then roll it back. */
  rollback(fn: (tx: CallerTransaction) => Promise<void>): Promise<void>;
  /** The adapter given the library's root client (not a transaction): it must refuse it. */
  adaptRoot(): unknown;
  close(): Promise<void>;
}

/** What a harness throws to make its library roll a transaction back. */
export class RollBack extends Error {}

/** Run `fn` in `begin`'s transaction and end it by throwing RollBack: resolves once rolled back. */
export async function rollingBack<T>(
  begin: (body: (tx: T) => Promise<void>) => Promise<unknown>,
  fn: (tx: T) => Promise<void>,
): Promise<void> {
  await assert.rejects(
    begin(async (tx) => {
      await fn(tx);
      throw new RollBack('roll back');
    }),
    RollBack,
  );
}

const DATA = {
  text: 'café ✓ 日本語 \u{1F30A} "quoted" \\ back',
  nested: { list: [1, 2.5, { deep: null, yes: true }], empty: {} },
  big: 2 ** 53 - 1,
};

/**
 * The same scenarios for every adapter, on PostgreSQL (one Tidemark and one library client per
 * suite): commit and rollback of addJob, addJobs and signal, withTransaction joining both, and
 * values (jsonb, unicode, dates, arrays, idempotency keys) as PostgreSQL stores them.
 */
export function adapterScenarios(title: string, harnessOf: () => Promise<AdapterHarness>): void {
  if (!TEST_DRIVERS.includes('pg')) return;
  describe(`${title} [pg]`, () => {
    let tm: Tidemark;
    let harness: AdapterHarness;
    before(async () => {
      tm = await openOn('pg');
      tm.createQueue({ name: 'mail', signals: { go: 5 } });
      harness = await harnessOf();
    });
    after(async () => {
      await harness.close();
      await tm.close();
      await dropSchema('pg', tm.schema);
    });

    test('parameters reach PostgreSQL as Tidemark binds them: text, JSON text, numbers, arrays, null', async () => {
      let row: Record<string, unknown> | undefined;
      await harness.commit(async (tx) => {
        const result = await tx.query(
          "select $1::jsonb as j, $2::text[] as a, $3::int + 1 as n, $4::text as z, $5::text[] as e, '$1 ?' as lit, $1::jsonb ? 'k' as has, $6::text || $7 || $8 || $9 as mid, $10::text as ten",
          ['{"k":"é ✓"}', ['x', 'y,z'], 41, null, [], 'p', 'q', 'r', 's', 'tenth'],
        );
        row = result.rows[0] as Record<string, unknown>;
      });
      assert.deepEqual(row, {
        j: { k: 'é ✓' },
        a: ['x', 'y,z'],
        n: 42,
        z: null,
        e: [],
        lit: '$1 ?',
        has: true,
        mid: 'pqrs',
        ten: 'tenth',
      });
    });

    test("a job added in the app's transaction is there after commit, with its data, runAt and key", async () => {
      const runAt = new Date('2031-02-03T04:05:06.789Z');
      let id = '';
      await harness.commit(async (tx) => {
        const added = await tm.addJob(
          {
            queue: 'mail',
            data: DATA,
            runAt,
            idempotencyKey: { key: `commit ${title} ключ`, ttlSeconds: 3600 },
            tags: ['a', 'b c'],
          },
          { tx },
        );
        id = added.id;
      });
      const job = await tm.getJob(id);
      assert.ok(job, 'the job is there once the transaction committed');
      assert.deepEqual(job.data, DATA);
      assert.equal(job.runAt.toISOString(), runAt.toISOString());
      assert.deepEqual(job.tags, ['a', 'b c']);
      const again = await tm.addJob({
        queue: 'mail',
        idempotencyKey: { key: `commit ${title} ключ`, ttlSeconds: 3600 },
      });
      assert.deepEqual(again, { id, deduplicated: true }, 'the committed key holds');
    });

    test('a job added in a rolled-back transaction is not there, nor is its key taken', async () => {
      let id = '';
      await harness.rollback(async (tx) => {
        id = (
          await tm.addJob(
            { queue: 'mail', data: DATA, idempotencyKey: { key: `rollback ${title}`, ttlSeconds: 3600 } },
            { tx },
          )
        ).id;
        assert.ok(await tx.query('select 1'), 'the transaction is still usable after the add');
      });
      assert.notEqual(id, '');
      assert.equal(await tm.getJob(id), null);
      const again = await tm.addJob({
        queue: 'mail',
        idempotencyKey: { key: `rollback ${title}`, ttlSeconds: 3600 },
      });
      assert.equal(again.deduplicated, false, 'the rolled-back key was never taken');
    });

    test('addJobs in the transaction: all of them after commit, in order, none after rollback', async () => {
      const inputs = [1, 2, 3].map((n) => ({ queue: 'mail', data: { n, text: `№${n}` } }));
      let committed: string[] = [];
      await harness.commit(async (tx) => {
        committed = (await tm.addJobs(inputs, { tx })).map((result) => result.id);
      });
      const jobs = await Promise.all(committed.map((id) => tm.getJob(id)));
      assert.deepEqual(
        jobs.map((job) => job?.data),
        inputs.map((input) => input.data),
      );
      let rolled: string[] = [];
      await harness.rollback(async (tx) => {
        rolled = (await tm.addJobs(inputs, { tx })).map((result) => result.id);
      });
      assert.equal(rolled.length, 3);
      assert.deepEqual(await Promise.all(rolled.map((id) => tm.getJob(id))), [null, null, null]);
    });

    test('keyed batches (behind a savepoint) and dependencies go with the transaction too', async () => {
      const keyed = (n: number) => ({
        queue: 'mail',
        data: { n },
        idempotencyKey: { key: `batch ${title} ${n}`, ttlSeconds: 3600 },
      });
      let ids: string[] = [];
      await harness.rollback(async (tx) => {
        const [first, second] = await tm.addJobs([keyed(1), keyed(2)], { tx });
        const child = await tm.addJob({ queue: 'mail', dependsOn: [first.id, second.id] }, { tx });
        ids = [first.id, second.id, child.id];
      });
      assert.deepEqual(await Promise.all(ids.map((id) => tm.getJob(id))), [null, null, null]);
      await harness.commit(async (tx) => {
        const [first, second] = await tm.addJobs([keyed(1), keyed(2)], { tx });
        const child = await tm.addJob({ queue: 'mail', dependsOn: [first.id, second.id] }, { tx });
        ids = [first.id, second.id, child.id];
      });
      const jobs = await Promise.all(ids.map((id) => tm.getJob(id)));
      assert.deepEqual(
        jobs.map((job) => job?.status),
        ['pending', 'pending', 'waiting'],
      );
      const again = await tm.addJobs([keyed(1), keyed(2)]);
      assert.deepEqual(
        again.map((result) => result.deduplicated),
        [true, true],
        'the committed keys hold',
      );
    });

    test('a signal sent in a rolled-back transaction is not delivered; one in a committed one is', async () => {
      const { id } = await tm.addJob({ queue: 'mail' });
      await harness.rollback(async (tx) => {
        assert.deepEqual(await tm.signal(id, 'go', { n: 'rolled back' }, { tx }), { delivered: true });
      });
      assert.deepEqual((await tm.getJobDetail(id))?.signals, []);
      await harness.commit(async (tx) => {
        assert.deepEqual(await tm.signal(id, 'go', { n: 'é committed' }, { tx }), { delivered: true });
      });
      const signals = (await tm.getJobDetail(id))?.signals ?? [];
      assert.deepEqual(
        signals.map((signal) => signal.payload),
        [{ n: 'é committed' }],
      );
    });

    test('withTransaction: addJob and signal without a tx join it, and go with its rollback or commit', async () => {
      const { id: target } = await tm.addJob({ queue: 'mail' });
      let rolledJob = '';
      await harness.rollback(async (tx) => {
        await tm.withTransaction(tx, async () => {
          rolledJob = (await tm.addJob({ queue: 'mail', data: { in: 'scope' } })).id;
          await tm.signal(target, 'go', 'rolled back');
        });
      });
      assert.equal(await tm.getJob(rolledJob), null);
      assert.deepEqual((await tm.getJobDetail(target))?.signals, []);
      let committedJob = '';
      await harness.commit(async (tx) => {
        committedJob = await tm.withTransaction(tx, async () => {
          await tm.signal(target, 'go', 'committed');
          return (await tm.addJob({ queue: 'mail', data: { in: 'scope' } })).id;
        });
      });
      assert.deepEqual((await tm.getJob(committedJob))?.data, { in: 'scope' });
      assert.deepEqual(
        (await tm.getJobDetail(target))?.signals.map((signal) => signal.payload),
        ['committed'],
      );
    });

    test('the adapter refuses the root client, which would run each statement on its own', () => {
      assert.throws(
        () => harness.adaptRoot(),
        (error: unknown) => error instanceof InvalidOptionError && error.field === 'tx',
      );
    });
  });
}
