import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { InvalidOptionError } from '../../errors.js';
import { isObject } from '../../model/guards.js';
import type { Driver } from './driver.js';
import { NodePostgresDriver } from './node-postgres.js';
import { PgliteDriver } from './pglite.js';

/**
 * An open PGlite instance from `@electric-sql/pglite`, named by the methods Tidemark calls, so
 * that an app's type check does not need PGlite's own declarations (they refer to Emscripten
 * types that PGlite does not install).
 */
export interface PgliteInstance {
  query(query: string, params?: unknown[]): Promise<unknown>;
  exec(query: string): Promise<unknown>;
  transaction<T>(
    callback: (tx: {
      query(query: string, params?: unknown[]): Promise<unknown>;
      exec(query: string): Promise<unknown>;
    }) => Promise<T>,
  ): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<unknown>;
  close(): Promise<void>;
}

/** What `Tidemark.open({ database })` accepts. */
export type DatabaseOption = string | pg.Pool | PgliteInstance;

export interface CreateDriverOptions {
  strictDurability?: boolean;
  onError?: (error: unknown) => void;
  /** Pool size when Tidemark creates the node-postgres pool from a URL. */
  poolSize?: number;
  /** False: node-postgres runs every statement unnamed (for a pooler in transaction mode). */
  preparedStatements?: boolean;
  /** node-postgres only: a direct connection string for LISTEN. */
  listenDatabase?: string;
  /** PGlite on a folder path only: a new folder may start from the seed migrated for this schema. */
  seedSchema?: string;
}

/** `'memory://'`, a folder path, a `postgres://` URL, a `pg.Pool` or a PGlite instance → a Driver. */
export async function createDriver(
  database: DatabaseOption,
  options: CreateDriverOptions = {},
): Promise<Driver> {
  if (typeof database === 'string') {
    if (database.length === 0) throw new InvalidOptionError('database', 'a non-empty string', database);
    if (isPostgresUrl(database)) {
      return NodePostgresDriver.fromUrl(database, { ...pgOptions(options), max: options.poolSize });
    }
    refuseListenDatabase(options);
    return PgliteDriver.open(database, {
      strictDurability: options.strictDurability,
      seedSchema: options.seedSchema,
      preparedStatements: options.preparedStatements,
    });
  }
  if (database instanceof pg.Pool || isPool(database))
    return new NodePostgresDriver(database, false, pgOptions(options));
  if (isPglite(database)) {
    refuseListenDatabase(options);
    // The instance is a PGlite: PgliteInstance names only what an app's type check needs.
    return await PgliteDriver.wrap(database as PGlite, { preparedStatements: options.preparedStatements });
  }
  throw new InvalidOptionError('database', DATABASE_EXPECTED, database);
}

/** What `database` takes, in an error. */
export const DATABASE_EXPECTED = "a folder path, 'memory://', a postgres:// URL, a pg.Pool or a PGlite";

/** Whether a value is one of the forms `database` takes (a string is checked when opened). */
export function isDatabaseOption(value: unknown): value is DatabaseOption {
  return typeof value === 'string' || value instanceof pg.Pool || isPool(value) || isPglite(value);
}

function isPglite(value: unknown): value is PgliteInstance {
  return (
    isObject(value) &&
    typeof value.query === 'function' &&
    typeof value.exec === 'function' &&
    typeof value.transaction === 'function' &&
    typeof value.listen === 'function'
  );
}

/** A pg.Pool from another copy of `pg` fails instanceof; recognise it by shape. */
function isPool(value: unknown): value is pg.Pool {
  return (
    isObject(value) &&
    typeof value.connect === 'function' &&
    typeof value.query === 'function' &&
    typeof value.totalCount === 'number'
  );
}

/** A `postgres://` or `postgresql://` connection string. */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

function pgOptions(options: CreateDriverOptions) {
  return {
    onError: options.onError,
    preparedStatements: options.preparedStatements,
    listenUrl: options.listenDatabase,
  };
}

/** The embedded database is one session, whose notifications always reach it: nothing to listen on apart. */
function refuseListenDatabase(options: CreateDriverOptions): void {
  if (options.listenDatabase !== undefined) {
    throw new InvalidOptionError(
      'listenDatabase',
      'left out with an embedded database (it is for a PostgreSQL server behind a pooler)',
      options.listenDatabase,
    );
  }
}
