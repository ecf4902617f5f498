import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { type DriverKind, sharedPgPool } from './databases.js';

/**
 * Schemas a test file hands from one test to the next. Opening on a new schema cost the server
 * about 0.11 s more CPU than opening on one already migrated (some 130 tables, indexes and
 * functions made, then dropped after the test), and PGlite about 0.1 s in the test's process;
 * the suite opens one for most of its tests. Checking and emptying a schema the last test left
 * as it found it takes a few milliseconds.
 *
 * A schema is taken again only when the test left its catalog as the migrations made it (the
 * same tables, columns, functions, triggers, constraints and grants), never analysed or
 * vacuumed, and no table of 10 pages or more (below that the planner takes a never-vacuumed
 * table for 10 pages, whatever it holds): plans, ids and counts then start where a new
 * schema's would. Anything else is dropped, as before.
 * Emptying deletes every row with triggers off and puts back the rows and sequence positions
 * the migrations left, read from the first schema of its kind.
 */

/** Schemas migrated alike: by Tidemark.open, or on the test kit's clock. */
export type SchemaVariant = 'plain' | 'clock';

/** Which of a file's pools a schema belongs to: a driver's database, and how it was migrated. */
export interface PoolKey {
  kind: DriverKind;
  database: pg.Pool | PGlite;
  variant: SchemaVariant;
}

type Run = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** A database the pool works on: one statement with parameters, or a script of several. */
interface Connection {
  run: Run;
  script(text: string): Promise<void>;
}

/** What a schema of one variant holds as the migrations leave it. */
interface Pristine {
  digest: string | null;
  tables: string[];
  /** The tables holding rows, with those rows as JSON text. */
  rows: { table: string; json: string }[];
  sequences: { name: string; last: string; called: boolean }[];
}

interface Pool extends Connection {
  pristine: Map<SchemaVariant, Pristine>;
  free: Map<SchemaVariant, string[]>;
  /** Every schema this pool made, whether it is free or in use. */
  owned: Set<string>;
}

let pgPool: Pool | null = null;
const pglitePools = new WeakMap<PGlite, Pool>();
/**
 * The process's pool of test server connections (test/support/databases.ts) does every drop and
 * reset: a connection of its own per test cost a PostgreSQL backend's start each time. Looked up
 * at each call, since a file run alone closes it at its end and a later one makes another.
 */
function pgConnection(): Connection {
  return {
    run: async (text, params) => (await sharedPgPool().query(text, params)).rows,
    script: async (text) => {
      await sharedPgPool().query(text);
    },
  };
}

function poolOf(kind: DriverKind, database: pg.Pool | PGlite): Pool {
  const fresh = (db: Connection): Pool => ({ ...db, pristine: new Map(), free: new Map(), owned: new Set() });
  if (kind === 'pg') {
    pgPool ??= fresh(pgConnection());
    return pgPool;
  }
  const db = database as PGlite;
  let pool = pglitePools.get(db);
  if (!pool) {
    pool = fresh({
      run: async (text, params) => (await db.query<Record<string, unknown>>(text, params)).rows,
      script: async (text) => {
        await db.exec(text);
      },
    });
    pglitePools.set(db, pool);
  }
  return pool;
}

/** A schema of `variant` a test left as new, emptied; null when there is none. */
export function takeSchema({ kind, database, variant }: PoolKey): string | null {
  return poolOf(kind, database).free.get(variant)?.pop() ?? null;
}

/**
 * Note a schema just migrated for a test (before the test writes to it): the pool may hand it
 * on afterwards. The first of each variant is read to learn what a new one holds.
 */
export async function adoptSchema({ kind, database, variant }: PoolKey, schema: string): Promise<void> {
  const pool = poolOf(kind, database);
  if (pool.owned.has(schema)) return;
  pool.owned.add(schema);
  if (!pool.pristine.has(variant)) pool.pristine.set(variant, await readPristine(pool.run, schema));
}

/**
 * After the test's engines are closed: empty the schema and keep it for the next test when the
 * test left it as new; otherwise drop it (PGlite's schemas go with the instance).
 */
export async function releaseSchema({ kind, database, variant }: PoolKey, schema: string): Promise<void> {
  const pool = poolOf(kind, database);
  const pristine = pool.pristine.get(variant);
  if (pristine?.digest && pool.owned.has(schema) && (await digestOf(pool.run, schema)) === pristine.digest) {
    await pool.script(resetSql(schema, pristine));
    const free = pool.free.get(variant) ?? [];
    free.push(schema);
    pool.free.set(variant, free);
    return;
  }
  pool.owned.delete(schema);
  if (kind === 'pg') await dropPgSchema(schema);
}

/** Drop a pg schema through the pool's one connection (no-op when it is gone). */
export async function dropPgSchema(schema: string): Promise<void> {
  pgPool?.owned.delete(schema);
  await pgConnection().script(`drop schema if exists "${schema}" cascade`);
}

/** Drop the pg schemas this file kept: called once its tests are done. */
export async function dropPooledSchemas(): Promise<void> {
  if (!pgPool) return;
  const schemas = [...pgPool.owned];
  pgPool = null;
  for (const schema of schemas) await dropPgSchema(schema);
}

/**
 * One line per catalog entry of the schema that a test could change, the schema's own name
 * taken out so that schemas of one variant compare equal; and the marks of use that would make
 * a reused schema plan or count unlike a new one (statistics, a vacuum, a table of 10 pages).
 * Every read goes through a catalog index, from the objects that name the schema as theirs in
 * pg_depend: a suite's churn leaves pg_class, pg_attribute and pg_proc many pages long, and a
 * scan of them cost each test 50 ms.
 */
const DIGEST = /* sql */ `
with members as materialized (
  select d.classid, d.objid from pg_depend d
   where d.refclassid = 'pg_namespace'::regclass and d.refobjid = $1::text::regnamespace::oid
),
tables as materialized (
  select c.oid, c.relname, c.relkind from pg_class c join members m on m.objid = c.oid
   where m.classid = 'pg_class'::regclass
),
relations as materialized (
  select oid from tables
  union all
  select i.indexrelid from pg_index i join tables t on t.oid = i.indrelid
),
items as (
  select format('member %s', m.classid::regclass) as item from members m
  union all
  select format('class %s %s %s %s %s %s %s', c.relname, c.relkind, c.relnatts, c.relacl, c.reloptions,
                c.reltuples, c.relhastriggers)
    from pg_class c join relations r on r.oid = c.oid
  union all
  select format('column %s.%s %s %s %s %s', t.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                a.attnotnull, a.attisdropped, a.atthasdef)
    from pg_attribute a join tables t on t.oid = a.attrelid where a.attnum > 0
  union all
  select format('function %s %s %s %s', p.proname, md5(replace(p.prosrc, $1::text, '')), p.proacl, p.proconfig)
    from pg_proc p join members m on m.objid = p.oid where m.classid = 'pg_proc'::regclass
  union all
  -- A foreign key's own triggers are named by their oid: those count by table and state alone.
  select format('trigger %s.%s %s', t.relname, case when g.tgisinternal then 'internal' else g.tgname end, g.tgenabled)
    from pg_trigger g join tables t on t.oid = g.tgrelid
  union all
  select format('constraint %s %s %s', k.conname, k.contype, k.convalidated)
    from pg_constraint k join tables t on t.oid = k.conrelid
  union all
  select format('schema %s', n.nspacl) from pg_namespace n where n.oid = $1::text::regnamespace::oid
  union all
  select format('default acl %s %s', d.defaclobjtype, d.defaclacl) from pg_default_acl d
   where d.defaclnamespace = $1::text::regnamespace::oid
  union all
  select format('statistics %s', count(*)) from pg_statistic s join relations r on r.oid = s.starelid
  union all
  select format('large tables %s', count(*)) from tables t
   where t.relkind = 'r' and pg_relation_size(t.oid) >= 10 * 8192
)
select md5(string_agg(replace(item, $1::text, ''), E'\\n' order by item)) as digest from items`;

/** The schema's digest; null when it is gone or unreadable (an open that failed, say). */
async function digestOf(run: Run, schema: string): Promise<string | null> {
  try {
    const [row] = await run(DIGEST, [schema]);
    return String(row?.digest);
  } catch {
    return null;
  }
}

async function readPristine(run: Run, schema: string): Promise<Pristine> {
  const relations = await run(
    `select relname, relkind from pg_class where relnamespace = $1::regnamespace and relkind in ('r', 'S')
      order by relname`,
    [schema],
  );
  const tables = relations.filter((r) => r.relkind === 'r').map((r) => String(r.relname));
  const rows: Pristine['rows'] = [];
  for (const table of tables) {
    const [row] = await run(`select json_agg(t)::text as json from ${quoted(schema, table)} t`);
    if (row?.json != null) rows.push({ table, json: String(row.json) });
  }
  const sequences: Pristine['sequences'] = [];
  for (const r of relations.filter((r) => r.relkind === 'S')) {
    const name = String(r.relname);
    const [row] = await run(
      `select last_value::text as last, is_called as called from ${quoted(schema, name)}`,
    );
    sequences.push({ name, last: String(row?.last), called: row?.called === true });
  }
  return { digest: await digestOf(run, schema), tables, rows, sequences };
}

/** One script: every row deleted with triggers off, then the migrations' rows and sequence positions back. */
function resetSql(schema: string, pristine: Pristine): string {
  const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
  return [
    'begin',
    'set local session_replication_role = replica',
    ...pristine.tables.map((table) => `delete from ${quoted(schema, table)}`),
    ...pristine.rows.map(
      ({ table, json }) =>
        `insert into ${quoted(schema, table)} overriding system value ` +
        `select * from json_populate_recordset(null::${quoted(schema, table)}, ${literal(json)})`,
    ),
    ...pristine.sequences.map(
      ({ name, last, called }) => `select setval(${literal(quoted(schema, name))}, ${last}, ${called})`,
    ),
    'commit;',
  ].join(';\n');
}

function quoted(schema: string, name: string): string {
  return `"${schema}"."${name}"`;
}
