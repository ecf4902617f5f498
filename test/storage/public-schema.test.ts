import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { SchemaConflictError, Tidemark } from '../../src/index.js';
import { migrations } from '../../src/storage/migrations/index.js';
import { PG_URL } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { bootTestPglite } from '../support/pglite-boot.js';

/**
 * A database of its own, whose `public` schema only this file's tests use, one at a time. Each
 * test starts on `public` as a new database has it (`renew`), so they share the database
 * without sharing a row: a database per test would cost each a DROP DATABASE, which on
 * PostgreSQL forces a checkpoint of the whole server, or a PGlite boot.
 */
interface OwnDatabase {
  database: string | PGlite;
  sql<Row = Record<string, unknown>>(text: string): Promise<Row[]>;
  /** Make `public` again as a new database has it, unless no test has used it yet. */
  renew(): Promise<void>;
  dispose(): Promise<void>;
}

/** What a new database's `public` is, beyond its contents: its owner, privileges and comment. */
const PUBLIC_SCHEMA = `
  select n.nspowner::regrole::text as owner, n.nspacl::text as acl, obj_description(n.oid, 'pg_namespace') as comment
    from pg_namespace n where n.nspname = 'public'`;

/** `public` dropped with everything in it, and made again as initdb makes it. */
const RENEW_PUBLIC = `
  drop schema public cascade;
  create schema public authorization pg_database_owner;
  comment on schema public is 'standard public schema';
  grant usage on schema public to public;`;

async function ownDatabase(kind: 'pg' | 'pglite'): Promise<OwnDatabase> {
  const connection = await connectOwnDatabase(kind);
  const [asNew] = await connection.sql(PUBLIC_SCHEMA);
  let used = false;
  return {
    ...connection,
    async renew() {
      if (used) {
        await connection.sql(RENEW_PUBLIC);
        const [renewed] = await connection.sql(PUBLIC_SCHEMA);
        assert.deepEqual(renewed, asNew, "public made again as a new database's");
      }
      used = true;
    },
  };
}

async function connectOwnDatabase(kind: 'pg' | 'pglite'): Promise<Omit<OwnDatabase, 'renew'>> {
  if (kind === 'pglite') {
    const db = await bootTestPglite();
    return {
      database: db,
      sql: async <Row>(text: string) => {
        const results = await db.exec(text);
        return (results.at(-1)?.rows ?? []) as Row[];
      },
      dispose: () => db.close(),
    };
  }
  const name = `tt_public_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  return {
    database: url.toString(),
    sql: async <Row>(text: string) => {
      const result = await pool.query(text);
      const last = Array.isArray(result) ? result.at(-1) : result;
      return (last?.rows ?? []) as Row[];
    },
    dispose: async () => {
      await pool.end();
      await admin.query(`drop database if exists "${name}"`);
      await admin.end();
    },
  };
}

/** What the application keeps in `public` before Tidemark arrives: its own migrations table among them. */
const APPLICATION_TABLES = `
  create table public.migrations (id serial primary key, name text not null, run_on timestamp not null);
  insert into public.migrations (name, run_on) values ('/20240101-users', '2024-01-01'), ('/20240202-orders', '2024-02-02');
  create table public.users (id serial primary key, email text not null);
  insert into public.users (email) values ('a@example.com');
  create table public.schema_migrations (version text primary key);
  insert into public.schema_migrations values ('20240101000000');`;

/** The application's tables as rows and columns: what "untouched" compares. */
const APPLICATION_STATE = `
  select json_build_object(
    'migrations', (select json_agg(m order by id) from public.migrations m),
    'users', (select json_agg(u order by id) from public.users u),
    'schema_migrations', (select json_agg(s) from public.schema_migrations s),
    'columns', (select json_agg(table_name || '.' || column_name || ' ' || data_type order by table_name, ordinal_position)
                  from information_schema.columns
                 where table_schema = 'public' and table_name in ('migrations', 'users', 'schema_migrations'))
  )::text as state`;

/** Every relation and function in `public`, by name and kind: what "nothing written" compares. */
const PUBLIC_CONTENTS = `
  select coalesce(json_agg(name order by name), '[]')::text as names from (
    select c.relname || ' ' || c.relkind::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public'
    union all
    select p.proname || '()' from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'
  ) all_names`;

describeEachDriver("schema: 'public' beside an application's own tables", ({ kind }) => {
  let own: Promise<OwnDatabase> | null = null;
  /** The driver's own database, its `public` as new. */
  const freshDatabase = async () => {
    own ??= ownDatabase(kind);
    const db = await own;
    await db.renew();
    return db;
  };
  after(async () => {
    await (await own)?.dispose();
  });

  test("Tidemark runs in public beside the application's migrations table, which it leaves as it was", async () => {
    const db = await freshDatabase();
    await db.sql(APPLICATION_TABLES);
    const [before] = await db.sql<{ state: string }>(APPLICATION_STATE);

    const tm = await Tidemark.open({ database: db.database, schema: 'public' });
    try {
      tm.createQueue({ name: 'mail', handler: async () => 'sent' });
      const { id } = await tm.addJob({ queue: 'mail', data: { to: 'a@example.com' } });
      assert.equal((await tm.getJob(id))?.status, 'pending');
      await tm.sweep();
    } finally {
      await tm.close();
    }
    // Opened again: Tidemark reads its own record, never the application's.
    const again = await Tidemark.open({ database: db.database, schema: 'public' });
    await again.close();

    const [after] = await db.sql<{ state: string }>(APPLICATION_STATE);
    assert.equal(after.state, before.state, "the application's tables, rows and columns untouched");
    const record = await db.sql<{ version: number }>(
      'select version from public.tidemark_migrations order by version',
    );
    assert.deepEqual(
      record.map((r) => Number(r.version)),
      migrations.map((m) => m.version),
    );
  });

  test('an application table, index or sequence under a name Tidemark would create is refused by name, with nothing written', async () => {
    const db = await freshDatabase();
    await db.sql(`${APPLICATION_TABLES}
      create table public.orders (id serial primary key, queue text, placed_at timestamptz);
      create index jobs_claim_idx on public.orders (queue, placed_at);
      create sequence public.workers_id_seq;`);
    const [before] = await db.sql<{ names: string }>(PUBLIC_CONTENTS);
    const [state] = await db.sql<{ state: string }>(APPLICATION_STATE);

    await assert.rejects(Tidemark.open({ database: db.database, schema: 'public' }), (error: unknown) => {
      assert.ok(error instanceof SchemaConflictError, String(error));
      assert.equal(error.code, 'SCHEMA_CONFLICT');
      assert.deepEqual(error.names, ['jobs_claim_idx', 'workers_id_seq']);
      assert.match(
        error.message,
        /^schema 'public' already holds jobs_claim_idx, workers_id_seq, not created by Tidemark/,
      );
      return true;
    });
    const [after] = await db.sql<{ names: string }>(PUBLIC_CONTENTS);
    assert.equal(after.names, before.names, 'nothing created in public');
    assert.equal((await db.sql<{ state: string }>(APPLICATION_STATE))[0].state, state.state);
  });
});
