import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { SchemaConflictError, type Tidemark } from '../../src/index.js';
import { latestVersion, migrations } from '../../src/storage/migrations/index.js';
import { bindSchema } from '../../src/storage/schema-name.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { freshSchema, rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/** Several statements on the test database, outside Tidemark. */
async function script(tm: Tidemark, text: string): Promise<void> {
  await runnerOf(engineOf(tm).storage).driver.exec(text);
}

/** Every relation and function in a schema, by name: what "nothing written" compares. */
async function contents(tm: Tidemark, schema: string): Promise<string[]> {
  const rows = await rawQuery<{ name: string }>(
    tm,
    `select c.relname || ' ' || c.relkind::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1
     union all
     select p.proname || '()' from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = $1
     order by 1`,
    [schema],
  );
  return rows.map((r) => r.name);
}

describeEachDriver('a schema shared with other tools', ({ open }) => {
  test('a schema holding another tool\u2019s migrations table opens, and that table is left as it was', async () => {
    const host = await open();
    const schema = freshSchema();
    await script(
      host,
      `create schema "${schema}";
       create table "${schema}".migrations (id serial primary key, filename text not null, run_on timestamp);
       insert into "${schema}".migrations (filename, run_on) values ('20240101-create-users.sql', now());`,
    );
    const tm = await open({ schema });
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: { a: 1 } });
    assert.equal((await tm.getJob(id))?.id, id);

    const theirs = await rawQuery<{ filename: string }>(tm, `select filename from "${schema}".migrations`);
    assert.deepEqual(
      theirs,
      [{ filename: '20240101-create-users.sql' }],
      'the other tool\u2019s rows untouched',
    );
    const ours = await rawQuery<{ version: number }>(
      tm,
      `select version from "${schema}".tidemark_migrations order by version`,
    );
    assert.deepEqual(
      ours.map((r) => Number(r.version)),
      migrations.map((m) => m.version),
    );
    // Reopening reads Tidemark's own record, not theirs.
    const again = await open({ schema });
    assert.equal((await again.getJob(id))?.id, id);
  });

  test('a schema holding a foreign jobs (and signals) table is refused naming them, with nothing written', async () => {
    const host = await open();
    const schema = freshSchema();
    await script(
      host,
      `create schema "${schema}";
       create table "${schema}".jobs (id serial primary key, title text not null);
       create table "${schema}".signals (id serial primary key, kind text);
       insert into "${schema}".jobs (title) values ('the application''s own job');`,
    );
    const before = await contents(host, schema);
    try {
      await assert.rejects(open({ schema }), (error: unknown) => {
        assert.ok(error instanceof SchemaConflictError, String(error));
        assert.equal(error.code, 'SCHEMA_CONFLICT');
        assert.deepEqual(error.names, ['jobs', 'signals']);
        assert.match(
          error.message,
          new RegExp(`schema '${schema}' already holds jobs, signals, not created by Tidemark`),
        );
        return true;
      });
      assert.deepEqual(await contents(host, schema), before, 'nothing created in the schema');
      const rows = await rawQuery<{ title: string }>(host, `select title from "${schema}".jobs`);
      assert.deepEqual(rows, [{ title: "the application's own job" }]);
    } finally {
      await rawQuery(host, `drop schema "${schema}" cascade`);
    }
  });

  test('an install that kept its record in the old migrations table is upgraded in place', async () => {
    const host = await open();
    const schema = freshSchema();
    // What Tidemark 0.1 left: its record in "migrations", and migrations 1 to 5 applied.
    const old = migrations.filter((m) => m.version <= 5);
    await script(
      host,
      `create schema "${schema}";
       create table "${schema}".migrations (
         version integer primary key,
         name text not null,
         applied_at timestamptz not null default now()
       );
       ${old.map((m) => bindSchema(m.sql, schema)).join('\n')}
       ${old.map((m) => `insert into "${schema}".migrations (version, name) values (${m.version}, '${m.name}');`).join('\n')}
       insert into "${schema}".queues (name) values ('q');
       insert into "${schema}".jobs (queue, data) values ('q', '{"kept":true}');`,
    );
    const tm = await open({ schema });
    const [job] = await rawQuery<{ id: string }>(tm, `select id::text from "${schema}".jobs`);
    assert.deepEqual((await tm.getJob(job.id))?.data, { kept: true }, 'the job survives the upgrade');
    const tables = await rawQuery<{ old: boolean; now: boolean }>(
      tm,
      `select to_regclass($1) is not null as old, to_regclass($2) is not null as now`,
      [`"${schema}".migrations`, `"${schema}".tidemark_migrations`],
    );
    assert.deepEqual(tables, [{ old: false, now: true }], 'renamed, not copied');
    const record = await rawQuery<{ version: number }>(
      tm,
      `select version from "${schema}".tidemark_migrations order by version`,
    );
    assert.deepEqual(
      record.map((r) => Number(r.version)),
      migrations.map((m) => m.version),
    );
    assert.equal(record.length, latestVersion);
    // The later migrations ran on the old tables.
    const [column] = await rawQuery<{ n: number }>(
      tm,
      `select count(*)::int as n from pg_attribute where attrelid = to_regclass($1) and attname = 'instance'`,
      [`"${schema}".workers`],
    );
    assert.equal(column.n, 1);
  });
});
