import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { Tidemark } from '../../src/index.js';
import { defineQuery, type NoParams } from '../../src/storage/sql/define-query.js';
import { dropSchema, PG_URL, TEST_DRIVERS } from '../support/databases.js';

describe('defineQuery', () => {
  test('compiles @names to $n once each, leaving casts and operators alone', () => {
    const q = defineQuery<{ a: number; b: string }, { int4: number }>(
      't',
      `select @a::int, @b, @a, x @> y, '{}'::jsonb ? 'k'`,
    );
    assert.equal(q.text('s'), `select $1::int, $2, $1, x @> y, '{}'::jsonb ? 'k'`);
    assert.deepEqual(q.values({ a: 1, b: 'x' }), [1, 'x']);
    assert.throws(() => q.values({ a: 1 } as never), /@b/);
  });

  test('prepared-statement names stay distinct and within 63 bytes for long schema names', () => {
    const schema = 'a'.repeat(40);
    const long1 = defineQuery<NoParams, { '?column?': number }>(
      'countSomethingVeryLongNameNumberOne',
      'select 1 from /*schema*/jobs',
    );
    const long2 = defineQuery<NoParams, { '?column?': number }>(
      'countSomethingVeryLongNameNumberTwo',
      'select 2 from /*schema*/jobs',
    );
    assert.notEqual(long1.statementName(schema), long2.statementName(schema));
    assert.ok(long1.statementName(schema).length <= 63);
    assert.notEqual(long1.statementName(schema), long1.statementName('other'));
  });
});

if (TEST_DRIVERS.includes('pg')) {
  describe('prepared statements on a long schema name [pg only]', () => {
    test('a 40-character schema works end to end through one pooled connection', async () => {
      const schema = `tt_${'x'.repeat(37)}`;
      await dropSchema('pg', schema);
      // One connection, so every statement is prepared on the same session.
      const pool = new pg.Pool({ connectionString: PG_URL, max: 1 });
      const tm = await Tidemark.open({ database: pool, schema });
      try {
        tm.createQueue({ name: 'q', handler: async () => 'ok' });
        const { id } = await tm.addJob({ queue: 'q' });
        const worker = tm.worker({ pollIntervalSeconds: 0.05 });
        await worker.start();
        assert.equal(await tm.result(id, { timeoutSeconds: 20 }), 'ok');
      } finally {
        await tm.close();
        await pool.end();
        await dropSchema('pg', schema);
      }
    });
  });
}
