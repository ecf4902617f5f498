import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import {
  type CallerTransaction,
  InvalidOptionError,
  type Tidemark,
  TransactionClosedError,
} from '../../src/index.js';
import { closeSharedDatabases, dropSchema, openOn, TEST_DRIVERS } from '../support/databases.js';

/** A caller's transaction that counts the statements run through it. */
function counted(tx: CallerTransaction): CallerTransaction & { statements: number } {
  const wrapper = {
    statements: 0,
    query(text: string, params?: unknown[]) {
      wrapper.statements++;
      return tx.query(text, params);
    },
  };
  return wrapper;
}

class RollBack extends Error {}

// One engine per driver for the file: the tests share its queues and add jobs of their own.
after(closeSharedDatabases);
for (const kind of TEST_DRIVERS) {
  describe(`tm.withTransaction: the ambient transaction of adds and signals [${kind}]`, () => {
    let shared: Tidemark;
    const setUp = async () => shared;
    before(async () => {
      shared = await openOn(kind);
      shared.createQueue({ name: 'mail', signals: { go: 5 } });
    });
    after(async () => {
      await shared.close();
      await dropSchema(kind, shared.schema);
    });

    test('inside fn, addJob, addJobs, signal and a queue handle join tx; a rollback takes them all', async () => {
      const tm = await setUp();
      const handle = tm.defineQueue({ name: 'typed', input: z.object({ n: z.number() }) });
      const { id: target } = await tm.addJob({ queue: 'mail' });
      const ids: string[] = [];
      await assert.rejects(
        tm.transaction(async (tx) => {
          const joined = counted(tx);
          const value = await tm.withTransaction(joined, async () => {
            ids.push((await tm.addJob({ queue: 'mail' })).id);
            ids.push(...(await tm.addJobs([{ queue: 'mail' }, { queue: 'mail' }])).map((r) => r.id));
            ids.push((await handle.add({ n: 1 })).id);
            assert.deepEqual(await tm.signal(target, 'go', 'rolled back'), { delivered: true });
            return 'fn value';
          });
          assert.equal(value, 'fn value', "withTransaction resolves with fn's value");
          assert.ok(joined.statements >= 5, `every call ran through tx (${joined.statements} statements)`);
          throw new RollBack();
        }),
        RollBack,
      );
      assert.equal(ids.length, 4);
      for (const id of ids) assert.equal(await tm.getJob(id), null, `job ${id} went with the rollback`);
      assert.deepEqual((await tm.getJobDetail(target))?.signals, []);
    });

    test("a call's own { tx } wins over the scope; an inner withTransaction wins over an outer one", async () => {
      const tm = await setUp();
      await tm.transaction(async (tx) => {
        const outer = counted(tx);
        const inner = counted(tx);
        const own = counted(tx);
        await tm.withTransaction(outer, async () => {
          await tm.addJob({ queue: 'mail' }, { tx: own });
          assert.equal(outer.statements, 0, 'the explicit tx took the add');
          assert.ok(own.statements > 0);
          await tm.withTransaction(inner, () => tm.addJob({ queue: 'mail' }));
          assert.equal(outer.statements, 0, 'the inner scope took the add');
          assert.ok(inner.statements > 0);
          await tm.addJob({ queue: 'mail' });
          assert.ok(outer.statements > 0, 'back in the outer scope once the inner one ended');
        });
      });
    });

    test('after fn settles, a call it left behind is refused; calls outside any scope use their own', async () => {
      const tm = await setUp();
      let late: Promise<unknown> | undefined;
      let release: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      await tm.transaction(async (tx) => {
        await tm.withTransaction(tx, () => {
          // Started inside fn, run after it settled: it must not write in a finished transaction.
          late = gate.then(() => tm.addJob({ queue: 'mail' }));
        });
      });
      release();
      await assert.rejects(late as Promise<unknown>, TransactionClosedError);
      const { id } = await tm.addJob({ queue: 'mail' });
      assert.ok(await tm.getJob(id), 'a call outside any scope is written in its own transaction');
    });

    test('what cannot run statements is refused before fn runs; an audited signal cannot join a tx', async () => {
      const tm = await setUp();
      let ran = false;
      const fn = async () => {
        ran = true;
      };
      await assert.rejects(
        tm.withTransaction({} as CallerTransaction, fn),
        (error: unknown) => error instanceof InvalidOptionError && error.field === 'tx',
      );
      assert.equal(ran, false);
      const { id } = await tm.addJob({ queue: 'mail' });
      await tm.transaction(async (tx) => {
        await assert.rejects(
          tm.signal(id, 'go', 1, { tx, actor: 'alice' }),
          (error: unknown) => error instanceof InvalidOptionError && error.field === 'options.tx',
        );
        await assert.rejects(
          tm.withTransaction(tx, () => tm.signal(id, 'go', 1, { actor: 'alice' })),
          (error: unknown) =>
            error instanceof InvalidOptionError &&
            error.field === 'options.tx' &&
            /inside tm\.withTransaction/.test(error.message),
        );
      });
      assert.deepEqual((await tm.getJobDetail(id))?.signals, [], 'nothing was stored');
    });

    test('signal with { tx }: stored with the commit, and an unaudited signal writes no audit row', async () => {
      const tm = await setUp();
      const { id } = await tm.addJob({ queue: 'mail' });
      await tm.transaction(async (tx) => {
        assert.deepEqual(await tm.signal(id, 'go', { n: 1 }, { tx }), { delivered: true });
      });
      assert.deepEqual(
        (await tm.getJobDetail(id))?.signals.map((signal) => signal.payload),
        [{ n: 1 }],
        'the signal committed with its transaction',
      );
      // An optional transaction passed through as undefined is an application's signal too.
      assert.deepEqual(await tm.signal(id, 'go', { n: 2 }, { tx: undefined }), { delivered: true });
      assert.deepEqual(await tm.listAudit(), []);
    });
  });
}
