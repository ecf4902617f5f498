import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { silentLogger, Tidemark } from '../../src/index.js';
import { TestTidemark } from '../../src/testing/index.js';
import {
  closeSharedDatabases,
  type DriverKind,
  databaseOf,
  dropSchema,
  freshSchema,
  rawQuery,
  TEST_DRIVERS,
} from '../support/databases.js';
import {
  adoptSchema,
  dropPooledSchemas,
  type PoolKey,
  releaseSchema,
  type SchemaVariant,
  takeSchema,
} from '../support/schema-pool.js';

/**
 * The suites' schemas are handed from one test to the next (test/support/schema-pool.ts): a
 * schema taken again must hold exactly what a new one holds, and one a test changed must not
 * be taken again.
 */

/** Every row of every table and every sequence's position, the schema's name left out. */
async function contents(tm: Tidemark): Promise<string> {
  const relations = await rawQuery<{ relname: string; relkind: string }>(
    tm,
    `select relname, relkind from pg_class where relnamespace = $1::regnamespace and relkind in ('r', 'S')
      order by relname`,
    [tm.schema],
  );
  const parts: string[] = [];
  for (const { relname, relkind } of relations) {
    const text =
      relkind === 'S'
        ? `select last_value::text || ' ' || is_called::text as v from "${tm.schema}"."${relname}"`
        : `select coalesce(json_agg(t)::text, '[]') as v from "${tm.schema}"."${relname}" t`;
    const [row] = await rawQuery<{ v: string }>(tm, text);
    // When each migration was applied, and the test clock's start (the time of its open): the
    // times alone differ.
    parts.push(`${relname}: ${row.v.replace(/"(applied_at|at)":"[^"]*"/g, '')}`);
  }
  return parts.join('\n');
}

const open = (database: pg.Pool | PGlite, variant: SchemaVariant, schema: string) =>
  variant === 'plain'
    ? Tidemark.open({ database, schema, logger: silentLogger })
    : TestTidemark.openOn(database, { schema, logger: silentLogger });

/** Open a schema as the suites do: one the pool hands on, else a new one it adopts. */
async function openPooled(kind: DriverKind, variant: SchemaVariant): Promise<Tidemark> {
  const key = await keyOf(kind, variant);
  const schema = takeSchema(key) ?? freshSchema();
  const tm = await open(key.database, variant, schema);
  await adoptSchema(key, schema);
  return tm;
}

async function release(tm: Tidemark, kind: DriverKind, variant: SchemaVariant): Promise<void> {
  await tm.close();
  await releaseSchema(await keyOf(kind, variant), tm.schema);
}

async function keyOf(kind: DriverKind, variant: SchemaVariant): Promise<PoolKey> {
  return { kind, database: await databaseOf(kind), variant };
}

async function use(tm: Tidemark): Promise<void> {
  tm.createQueue({ name: 'q', retention: { ttlSeconds: 60 } });
  const jobs = await tm.addJobs([1, 2, 3].map((n) => ({ queue: 'q', data: { n } })));
  await tm.cancelJob(jobs[0].id);
  await tm.pauseRetention({ reason: 'a test' });
}

for (const kind of TEST_DRIVERS) {
  describe(`the schemas a test file hands on [${kind}]`, () => {
    // The tests below count on an empty pool; a file before this one in its process may have
    // left schemas in the PGlite's (scripts/test-groups.mjs).
    before(async () => {
      for (const variant of ['plain', 'clock'] as const) {
        const key = await keyOf(kind, variant);
        while (takeSchema(key) !== null);
      }
    });
    after(async () => {
      await dropPooledSchemas();
      await closeSharedDatabases();
    });

    for (const variant of ['plain', 'clock'] as const) {
      test(`a schema taken again holds what a new one holds (${variant})`, async () => {
        const database = await databaseOf(kind);
        const reference = await open(database, variant, freshSchema());
        const expected = await contents(reference);
        await reference.close();
        await dropSchema(kind, reference.schema);

        const first = await openPooled(kind, variant);
        await use(first);
        assert.notEqual(await contents(first), expected, 'the first test wrote to its schema');
        await release(first, kind, variant);

        const second = await openPooled(kind, variant);
        assert.equal(second.schema, first.schema, 'the schema was handed on');
        assert.equal(await contents(second), expected);
        // It works as a new one does: ids start where a new schema's do.
        second.createQueue({ name: 'q' });
        const [job] = await second.addJobs([{ queue: 'q', data: {} }]);
        const [fresh] = await rawQuery<{ id: string }>(
          second,
          `select min(id)::text as id from "${second.schema}".jobs`,
        );
        assert.equal(job.id, fresh.id);
        await release(second, kind, variant);
      });
    }

    const changes: [string, (schema: string) => string][] = [
      ['a table added', (s) => `create table "${s}".extra (id int)`],
      ['a type added', (s) => `create type "${s}".mood as enum ('calm')`],
      ['a column added', (s) => `alter table "${s}".jobs add column extra int`],
      ['a trigger disabled', (s) => `alter table "${s}".jobs disable trigger all`],
      [
        'a function replaced',
        (s) =>
          `create or replace function "${s}".claim_commit() returns text language sql as $$ select 'on' $$`,
      ],
      ['a grant', (s) => `grant usage on schema "${s}" to public`],
      ['statistics gathered', (s) => `analyze "${s}".jobs`],
      [
        'a table of 10 pages',
        (s) =>
          `insert into "${s}".job_logs (job_id, attempt, level, message) select 1, 1, 'info', 'line ' || g from generate_series(1, 2000) g`,
      ],
    ];
    for (const [change, sql] of changes) {
      test(`a schema is not handed on after ${change}`, async () => {
        const tm = await openPooled(kind, 'plain');
        await rawQuery(tm, sql(tm.schema));
        await release(tm, kind, 'plain');
        assert.equal(takeSchema(await keyOf(kind, 'plain')), null);
      });
    }

    test('a new schema left as new is handed on, like the first', async () => {
      const key = await keyOf(kind, 'plain');
      // The pool is empty after the tests above: this schema is new, not the one it learnt from.
      assert.equal(takeSchema(key), null);
      const tm = await openPooled(kind, 'plain');
      await use(tm);
      await release(tm, kind, 'plain');
      assert.equal(takeSchema(key), tm.schema);
      await releaseSchema(key, tm.schema);
    });
  });
}
