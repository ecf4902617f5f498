import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { InvalidOptionError } from '../../errors.js';
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
}

/** `'memory://'`, a folder path, a `postgres://` URL, a `pg.Pool` or a PGlite instance → a Driver. */
export async function createDriver(
  database: DatabaseOption,
  options: CreateDriverOptions = {},
): Promise<Driver> {
  if (typeof database === 'string') {
    if (database.length === 0) throw new InvalidOptionError('database', 'a non-empty string', database);
    if (/^postgres(ql)?:\/\//i.test(database)) {
      return NodePostgresDriver.fromUrl(database, { onError: options.onError, max: options.poolSize });
    }
    return PgliteDriver.open(database, { strictDurability: options.strictDurability });
  }
  if (database instanceof pg.Pool || isPool(database))
    return new NodePostgresDriver(database, false, { onError: options.onError });
  if (isPglite(database)) return await PgliteDriver.wrap(database as unknown as PGlite);
  throw new InvalidOptionError(
    'database',
    "a folder path, 'memory://', a postgres:// URL, a pg.Pool or a PGlite",
    database,
  );
}

function isPglite(value: unknown): value is PgliteInstance {
  const candidate = value as PgliteInstance | null;
  return (
    !!candidate &&
    typeof candidate === 'object' &&
    typeof candidate.query === 'function' &&
    typeof candidate.exec === 'function' &&
    typeof candidate.transaction === 'function' &&
    typeof candidate.listen === 'function'
  );
}

/** A pg.Pool from another copy of `pg` fails instanceof; recognise it by shape. */
function isPool(value: unknown): value is pg.Pool {
  const candidate = value as pg.Pool | null;
  return (
    !!candidate &&
    typeof candidate === 'object' &&
    typeof candidate.connect === 'function' &&
    typeof candidate.query === 'function' &&
    typeof (candidate as { totalCount?: unknown }).totalCount === 'number'
  );
}
