import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { engineOf } from '../../src/engine-handle.js';
import { type OpenOptions, Tidemark } from '../../src/index.js';
import type { Driver } from '../../src/storage/driver/driver.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { bootTestPglite } from './pglite-boot.js';
import { dropPgSchema } from './schema-pool.js';

/** The drivers this run covers: TIDEMARK_TEST_DRIVERS=pglite,pg (default both). */
export type DriverKind = 'pglite' | 'pg';

export const TEST_DRIVERS: DriverKind[] = (process.env.TIDEMARK_TEST_DRIVERS ?? 'pglite,pg')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is DriverKind => s === 'pglite' || s === 'pg');

/**
 * The driver of suites whose subject lies above the storage layer (the dashboard, the HTTP
 * API, the CLI's commands, logs, metrics, traces): PostgreSQL when the run includes it (a
 * test costs about half as much there), else the run's first driver. Both drivers answer
 * every query alike, which the storage, worker, workflow and retention suites prove on each.
 */
export const ONE_DRIVER: DriverKind[] = TEST_DRIVERS.includes('pg') ? ['pg'] : TEST_DRIVERS.slice(0, 1);

export const PG_URL = process.env.TIDEMARK_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let sharedPglite: Promise<PGlite> | null = null;
let sharedPool: pg.Pool | null = null;
/** Whether the process runs several test files (scripts/run-tests.mjs groups them). */
let severalFiles = false;

/**
 * One in-memory PGlite per test process (booting one takes seconds); each test gets its own
 * schema in it, exactly as each PostgreSQL test gets its own schema.
 */
export function sharedPgliteInstance(): Promise<PGlite> {
  sharedPglite ??= bootTestPglite();
  return sharedPglite;
}

/**
 * Called first by a process that runs several test files: their files' closing of the
 * shared PGlite and pg pool is then left to `closeProcessDatabases`, and the next file finds
 * them open.
 */
export function shareAcrossFiles(): void {
  severalFiles = true;
}

/** A file's tests are done with the shared PGlite and pg pool: they close, unless more files follow. */
export async function closeSharedDatabases(): Promise<void> {
  if (!severalFiles) await closeProcessDatabases();
}

/**
 * One pg.Pool per test process, handed to the engines the pg tests open: their connections
 * outlive each engine and serve the next. A connection of its own per engine cost a PostgreSQL
 * backend's start (about 13 ms of the server's CPU, before the first query warms its caches)
 * for each of the few an engine uses, thousands in a run. Idle, it lets the process exit.
 */
export function sharedPgPool(): pg.Pool {
  if (!sharedPool) {
    sharedPool = new pg.Pool({ connectionString: PG_URL, max: 20, allowExitOnIdle: true });
    // A connection lost while idle (a server restarted by a fault test) is replaced on next use.
    sharedPool.on('error', () => {});
  }
  return sharedPool;
}

/** The process's tests are done: close the shared PGlite and the shared pg pool. */
export async function closeProcessDatabases(): Promise<void> {
  const pool = sharedPool;
  sharedPool = null;
  await pool?.end();
  if (!sharedPglite) return;
  const db = await sharedPglite;
  sharedPglite = null;
  await db.close();
}

/**
 * `tt_<seconds since epoch, base 36>_<random>`: the time lets the runner drop schemas left by
 * old runs without touching those of a run still in progress.
 */
export function freshSchema(): string {
  return `tt_${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(5).toString('hex')}`;
}

/** Open Tidemark on a fresh schema of the given driver. */
export async function openOn(kind: DriverKind, options: OpenOptions = {}): Promise<Tidemark> {
  const schema = options.schema ?? freshSchema();
  // Options that shape the engine's own connections need a pool it makes.
  const ownPool =
    options.poolSize !== undefined ||
    options.preparedStatements !== undefined ||
    options.listenDatabase !== undefined;
  const database = options.database ?? (kind === 'pg' && ownPool ? PG_URL : await databaseOf(kind));
  return Tidemark.open({ ...options, database, schema });
}

/** The database a test of `kind` opens: the process's pool of test server connections, or its PGlite. */
export async function databaseOf(kind: DriverKind): Promise<pg.Pool | PGlite> {
  return kind === 'pg' ? sharedPgPool() : sharedPgliteInstance();
}

/** The driver an engine runs its statements on. */
export function driverOf(tm: Tidemark): Driver {
  return runnerOf(engineOf(tm).storage).driver;
}

/** Run a statement against the test database directly (outside Tidemark). */
export async function rawQuery<Row = Record<string, unknown>>(
  tm: Tidemark,
  text: string,
  params: unknown[] = [],
): Promise<Row[]> {
  const result = await driverOf(tm).query<Row>(text, params);
  return result.rows;
}

/** Drop a pg test schema (PGlite schemas go with the instance). */
export async function dropSchema(kind: DriverKind, schema: string): Promise<void> {
  if (kind === 'pg') await dropPgSchema(schema);
}
