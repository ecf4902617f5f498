import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { dropSchema, openOn, rawQuery, sharedPgPool, TEST_DRIVERS } from '../support/databases.js';

const backendOf = async (tm: Tidemark) =>
  (await rawQuery<{ pid: number }>(tm, 'select pg_backend_pid() as pid'))[0].pid;

const poolOf = (tm: Tidemark) => (runnerOf(engineOf(tm).storage).driver as { pool?: unknown }).pool;

// The engines a pg test opens share the process's pool (test/support/databases.ts): a new
// connection per engine was a backend's start on the server each time.
if (TEST_DRIVERS.includes('pg')) {
  describe('the pg connections a test process shares', () => {
    const schemas: string[] = [];
    after(async () => {
      for (const schema of schemas) await dropSchema('pg', schema);
    });

    test("an engine's connection serves the next engine; options that shape a pool get their own", async () => {
      const first = await openOn('pg', { logger: silentLogger });
      schemas.push(first.schema);
      assert.equal(poolOf(first), sharedPgPool());
      const backend = await backendOf(first);
      await first.close();

      const second = await openOn('pg', { logger: silentLogger, schema: first.schema, migrate: false });
      try {
        assert.equal(await backendOf(second), backend, 'the same backend answers the next engine');
      } finally {
        await second.close();
      }

      for (const options of [{ poolSize: 2 }, { preparedStatements: false }]) {
        const own = await openOn('pg', {
          logger: silentLogger,
          schema: first.schema,
          migrate: false,
          ...options,
        });
        try {
          assert.notEqual(poolOf(own), sharedPgPool(), JSON.stringify(options));
        } finally {
          await own.close();
        }
      }
      // The shared pool outlives the engines that used it.
      assert.equal((await sharedPgPool().query('select 1 as one')).rows[0].one, 1);
    });
  });
}
