import { SchemaNotFoundError, SchemaTooNewError } from '../errors.js';
import type { Driver } from './driver/driver.js';
import { latestVersion, migrations } from './migrations/index.js';
import { bindSchema } from './schema-name.js';

/**
 * Apply pending migrations, each in the same transaction as the others, under a
 * transaction-scoped advisory lock so that processes opening at once apply each version
 * exactly once. A schema migrated by newer code is refused.
 * Returns the versions applied.
 */
export async function migrate(driver: Driver, schema: string): Promise<number[]> {
  return driver.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock(hashtext('tidemark:migrate:' || $1::text))", [schema]);
    await tx.exec(
      bindSchema(
        `create schema if not exists "${schema}";
         create table if not exists /*schema*/migrations (
           version integer primary key,
           name text not null,
           applied_at timestamptz not null default now()
         );`,
        schema,
      ),
    );
    const { rows } = await tx.query<{ version: number | null }>(
      bindSchema('select max(version)::int as version from /*schema*/migrations', schema),
    );
    const current = rows[0]?.version ?? 0;
    if (current > latestVersion) throw new SchemaTooNewError(schema, current, latestVersion);
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await tx.exec(bindSchema(migration.sql, schema));
      await tx.query(bindSchema('insert into /*schema*/migrations (version, name) values ($1, $2)', schema), [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The version a schema is at (0 when it has never been migrated). */
export async function schemaVersion(driver: Driver, schema: string): Promise<number> {
  const { rows } = await driver.query<{ version: number | null }>(
    `select case when to_regclass($1) is null then 0 end as version`,
    [`"${schema}".migrations`],
  );
  if (rows[0]?.version === 0) return 0;
  const result = await driver.query<{ version: number | null }>(
    bindSchema('select max(version)::int as version from /*schema*/migrations', schema),
  );
  return result.rows[0]?.version ?? 0;
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
