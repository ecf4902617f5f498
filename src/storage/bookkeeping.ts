import { SchemaConflictError } from '../errors.js';
import type { Queryable } from './driver/driver.js';
import type { Migration } from './migrations/index.js';
import { bindSchema } from './schema-name.js';

/**
 * Where Tidemark records the migrations it applied: a name no other tool uses, so a schema
 * shared with an application (`schema: 'public'`) can also hold that application's own
 * `migrations` table. Tidemark 0.1 called it `migrations`; such an install is renamed
 * in place (see `adoptOldBookkeeping`).
 */
export const BOOKKEEPING_TABLE = 'tidemark_migrations';
const OLD_BOOKKEEPING_TABLE = 'migrations';

export const CREATE_BOOKKEEPING = `create table if not exists /*schema*/${BOOKKEEPING_TABLE} (
  version integer primary key,
  name text not null,
  applied_at timestamptz not null default now()
);`;

/** Whether the schema has a relation of that name. */
async function hasTable(db: Queryable, schema: string, table: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>('select to_regclass($1) is not null as found', [
    `"${schema}"."${table}"`,
  ]);
  return rows[0]?.found === true;
}

/**
 * An old `migrations` table that is Tidemark's own: exactly Tidemark's three columns, its
 * first migration recorded under Tidemark's name for it, and Tidemark's `jobs` table (with
 * its own columns) beside it. Another tool's `migrations` table fails one of these and is
 * left alone.
 */
async function isOldBookkeeping(db: Queryable, schema: string, firstName: string): Promise<boolean> {
  if (!(await hasTable(db, schema, OLD_BOOKKEEPING_TABLE))) return false;
  const { rows } = await db.query<{ columns: string }>(
    `select string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' order by attnum) as columns
       from pg_attribute
      where attrelid = to_regclass($1) and attnum > 0 and not attisdropped`,
    [`"${schema}"."${OLD_BOOKKEEPING_TABLE}"`],
  );
  if (rows[0]?.columns !== 'version integer, name text, applied_at timestamp with time zone') return false;
  const first = await db.query<{ name: string }>(
    bindSchema(`select name from /*schema*/${OLD_BOOKKEEPING_TABLE} where version = 1`, schema),
  );
  if (first.rows[0]?.name !== firstName) return false;
  // Tidemark's jobs table: its tree and ownership columns, which an application's `jobs` lacks.
  const jobs = await db.query<{ n: number }>(
    `select count(*)::int as n from pg_attribute
      where attrelid = to_regclass($1) and attname in ('root_id', 'lock_token', 'purge_after') and not attisdropped`,
    [`"${schema}"."jobs"`],
  );
  return jobs.rows[0]?.n === 3;
}

/** The table holding the schema's migration record, or null when it has none (never migrated). */
export async function bookkeepingOf(
  db: Queryable,
  schema: string,
  firstName: string,
): Promise<string | null> {
  if (await hasTable(db, schema, BOOKKEEPING_TABLE)) return BOOKKEEPING_TABLE;
  return (await isOldBookkeeping(db, schema, firstName)) ? OLD_BOOKKEEPING_TABLE : null;
}

/** Rename an install's old bookkeeping table (and its key) to the name Tidemark keeps now. */
export async function adoptOldBookkeeping(db: Queryable, schema: string): Promise<void> {
  await db.query(
    bindSchema(`alter table /*schema*/${OLD_BOOKKEEPING_TABLE} rename to ${BOOKKEEPING_TABLE}`, schema),
  );
  await db.query(
    bindSchema(
      `alter table /*schema*/${BOOKKEEPING_TABLE} rename constraint migrations_pkey to ${BOOKKEEPING_TABLE}_pkey`,
      schema,
    ),
  );
}

/**
 * The relations and functions a migration creates, by name: its tables with the key and
 * identity sequence PostgreSQL names after each (`<table>_pkey`, `<table>_id_seq`), its
 * indexes, and its functions. All but the functions share one namespace in the schema. What
 * a migration drops before making it again (an index rebuilt) is Tidemark's own, and left out.
 */
function createdBy(migration: Migration): { relations: string[]; functions: string[] } {
  const names = (verb: string, kind: string, on: string) =>
    [
      ...migration.sql.matchAll(
        new RegExp(`${verb}\\s+${kind}\\s+(?:if\\s+(?:not\\s+)?exists\\s+)?${on}(\\w+)`, 'gi'),
      ),
    ].map((m) => m[1]);
  const dropped = new Set(names('drop', '(?:table|index|function)', '/\\*schema\\*/'));
  const tables = names('create', 'table', '/\\*schema\\*/');
  const relations = [
    ...tables.flatMap((table) => [table, `${table}_pkey`, `${table}_id_seq`]),
    ...names('create', '(?:unique\\s+)?index', ''),
  ];
  return {
    relations: relations.filter((name) => !dropped.has(name)),
    functions: names('create', '(?:or\\s+replace\\s+)?function', '/\\*schema\\*/').filter(
      (name) => !dropped.has(name),
    ),
  };
}

/**
 * Refuse, before anything is written, a schema that already holds a table (or any relation:
 * an index, a sequence) or a function under a name the pending migrations create: it is
 * another tool's or the application's, and Tidemark would fail halfway or, worse, work on rows
 * that are not its own.
 */
export async function checkNoForeignTables(
  db: Queryable,
  schema: string,
  pending: readonly Migration[],
): Promise<void> {
  const tables = pending.flatMap((m) => createdBy(m).relations);
  const functions = pending.flatMap((m) => createdBy(m).functions);
  if (tables.length === 0 && functions.length === 0) return;
  const { rows } = await db.query<{ name: string }>(
    `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relname = any($2::text[])
     union
     select p.proname || '()' from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname = $1 and p.proname = any($3::text[])
     order by 1`,
    [schema, tables, functions],
  );
  const found = new Set(rows.map((r) => r.name));
  // A foreign table is named once, not again by its key and sequence.
  const names = [...found].filter((name) => {
    const table = /^(\w+)_(?:pkey|id_seq)$/.exec(name)?.[1];
    return table === undefined || !found.has(table);
  });
  if (names.length > 0) throw new SchemaConflictError(schema, names);
}
