import { PermissionDeniedError, SchemaNotFoundError, SchemaTooNewError } from '../errors.js';
import {
  adoptOldBookkeeping,
  BOOKKEEPING_TABLE,
  bookkeepingOf,
  CREATE_BOOKKEEPING,
  checkNoForeignTables,
} from './bookkeeping.js';
import { isPermissionDenied, sqlState } from './database-errors.js';
import type { Driver, Queryable, TransactionHandle } from './driver/driver.js';
import { latestVersion, migrations } from './migrations/index.js';
import { bindSchema } from './schema-name.js';

/**
 * Apply pending migrations, each in the same transaction as the others, under a
 * transaction-scoped advisory lock so that processes opening at once apply each version
 * exactly once. A schema migrated by newer code is refused, and so is one holding tables of
 * another tool under names the pending migrations create (SchemaConflictError, before
 * anything is written). An install that kept its record under the old name `migrations` is
 * renamed in place. `rewrite` changes each migration's text once its schema is bound (the test
 * kit's clock). `upTo` stops at an earlier version (a seed of an older release, in tests).
 * A schema already up to date is only read: a role without DDL rights (a worker's, a
 * dashboard's) opens it with migrations on. The schema is created only when missing, so a
 * migrator that owns it needs no right to create schemas in the database. A role the database
 * refuses DDL is a PermissionDeniedError (action `migrate`), nothing written.
 * Returns the versions applied.
 */
export async function migrate(
  driver: Driver,
  schema: string,
  rewrite: (text: string) => string = String,
  upTo: number = latestVersion,
): Promise<number[]> {
  const bind = (text: string) => rewrite(bindSchema(text, schema));
  try {
    return await driver.transaction((tx) => applyPending(tx, schema, bind, upTo));
  } catch (error) {
    if (isPermissionDenied(error)) throw new PermissionDeniedError('migrate', String(sqlState(error)), error);
    throw error;
  }
}

async function applyPending(
  tx: TransactionHandle,
  schema: string,
  bind: (text: string) => string,
  upTo: number,
): Promise<number[]> {
  await tx.query("select pg_advisory_xact_lock(hashtext('tidemark:migrate:' || $1::text))", [schema]);
  const table = await bookkeepingOf(tx, schema, FIRST_NAME);
  const current = table === null ? 0 : await versionIn(tx, schema, table);
  if (current > latestVersion) throw new SchemaTooNewError(schema, current, latestVersion);
  const pending = migrations.filter((m) => m.version > current && m.version <= upTo);
  if (pending.length === 0 && table === BOOKKEEPING_TABLE) return [];
  await checkNoForeignTables(tx, schema, pending);
  if (!(await schemaExists(tx, schema))) await tx.exec(`create schema "${schema}";`);
  if (table !== null && table !== BOOKKEEPING_TABLE) await adoptOldBookkeeping(tx, schema);
  await tx.exec(bind(CREATE_BOOKKEEPING));
  const applied: number[] = [];
  for (const migration of pending) {
    await tx.exec(bind(migration.sql));
    await tx.query(
      bindSchema(`insert into /*schema*/${BOOKKEEPING_TABLE} (version, name) values ($1, $2)`, schema),
      [migration.version, migration.name],
    );
    applied.push(migration.version);
  }
  return applied;
}

async function schemaExists(db: Queryable, schema: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>(
    'select exists (select 1 from pg_namespace where nspname = $1) as found',
    [schema],
  );
  return rows[0]?.found === true;
}

/** Tidemark's name for its first migration: how its old bookkeeping table is recognised. */
const FIRST_NAME = migrations[0].name;

async function versionIn(db: Queryable, schema: string, table: string): Promise<number> {
  const { rows } = await db.query<{ version: number | null }>(
    bindSchema(`select max(version)::int as version from /*schema*/${table}`, schema),
  );
  return rows[0]?.version ?? 0;
}

/** The version a schema is at (0 when it has never been migrated). */
export async function schemaVersion(driver: Driver, schema: string): Promise<number> {
  const table = await bookkeepingOf(driver, schema, FIRST_NAME);
  return table === null ? 0 : versionIn(driver, schema, table);
}

/**
 * Refuse a schema this code cannot run on, without writing anything: what `migrate: false`
 * and the CLI's read-only commands rely on.
 */
export async function checkSchema(driver: Driver, schema: string): Promise<void> {
  const version = await schemaVersion(driver, schema);
  if (version > latestVersion) throw new SchemaTooNewError(schema, version, latestVersion);
  if (version < latestVersion) throw new SchemaNotFoundError(schema, version, latestVersion);
}
