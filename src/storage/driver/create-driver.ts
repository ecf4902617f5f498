import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { InvalidOptionError } from '../../errors.js';
import type { Driver } from './driver.js';
import { NodePostgresDriver } from './node-postgres.js';
import { PgliteDriver } from './pglite.js';

/** What `Tidemark.open({ database })` accepts. */
export type DatabaseOption = string | pg.Pool | PGlite;

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
  if (isPglite(database)) return PgliteDriver.wrap(database);
  throw new InvalidOptionError(
    'database',
    "a folder path, 'memory://', a postgres:// URL, a pg.Pool or a PGlite",
    database,
  );
}

function isPglite(value: unknown): value is PGlite {
  const candidate = value as PGlite | null;
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
