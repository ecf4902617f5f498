import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { after, describe, test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { closeSharedDatabases, dropSchema, openOn, TEST_DRIVERS } from '../support/databases.js';

// Node runs every AsyncLocalStorage a process has used on each promise made afterwards, for the
// life of the process: an engine that made storages of its own left each later promise of the
// process dearer, for every engine opened and closed before (a test suite, an app that opens an
// engine per request).
after(closeSharedDatabases);
for (const kind of TEST_DRIVERS) {
  describe(`the async context of transactions [${kind}]`, () => {
    test('engines opened one after another share the same storages: their number does not grow', async (t) => {
      const used = new Set<AsyncLocalStorage<unknown>>();
      const run = AsyncLocalStorage.prototype.run;
      t.mock.method(
        AsyncLocalStorage.prototype,
        'run',
        function (this: AsyncLocalStorage<unknown>, ...args: never[]) {
          used.add(this);
          return Reflect.apply(run, this, args);
        },
      );
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        const tm = await openOn(kind, { logger: silentLogger });
        try {
          tm.createQueue({ name: 'q' });
          // A transaction of the engine's own (a PGlite driver's marks its context), and the
          // caller's transaction joined through the context.
          const id = await tm.transaction(async (tx) =>
            tm.withTransaction(tx, async () => (await tm.addJob({ queue: 'q' })).id),
          );
          assert.equal((await tm.getJob(id))?.queue, 'q', 'the job added in the scope committed');
        } finally {
          await tm.close();
          await dropSchema(kind, tm.schema);
        }
        counts.push(used.size);
      }
      assert.ok(counts[0] > 0, 'the transactions ran in a context');
      assert.deepEqual(
        counts,
        [counts[0], counts[0], counts[0]],
        `storages used after each engine: ${counts}`,
      );
    });
  });
}
