import { after, afterEach, describe } from 'node:test';
import type { OpenOptions, Tidemark } from '../../src/index.js';
import { type TestKitOptions, TestTidemark } from '../../src/testing/index.js';
import {
  closeSharedDatabases,
  type DriverKind,
  databaseOf,
  dropSchema,
  freshSchema,
  ONE_DRIVER,
  openOn,
  TEST_DRIVERS,
} from './databases.js';
import {
  adoptSchema,
  dropPooledSchemas,
  type PoolKey,
  releaseSchema,
  type SchemaVariant,
  takeSchema,
} from './schema-pool.js';

export interface DriverContext {
  kind: DriverKind;
  /**
   * Open Tidemark on a schema of its own, as new: a new one, or one an earlier test of this file
   * left as new, emptied (test/support/schema-pool.ts). Closed after the test, and its schema
   * kept for the next or dropped.
   */
  open(options?: OpenOptions): Promise<Tidemark>;
  /**
   * Open the test kit's engine on a schema of its own, as `open` does: its
   * clock stands still until the test moves it, so a test of a window or a timeout waits for
   * none. Its worker is `runUntilIdle`; `tm.worker()` runs one beside it, on the same clock.
   */
  openOnClock(options?: TestKitOptions): Promise<TestTidemark>;
}

/** One `describe` per driver in TIDEMARK_TEST_DRIVERS, with an `open` that cleans up after each test. */
export function describeEachDriver(title: string, body: (ctx: DriverContext) => void): void {
  for (const kind of TEST_DRIVERS) describeOn(kind, title, body);
  after(closeSharedDatabases);
}

/**
 * The same for suites that need PostgreSQL itself (a second session, plans, scale): one
 * `describe` when PostgreSQL is among TIDEMARK_TEST_DRIVERS, none otherwise.
 */
export function describePostgresOnly(title: string, body: (ctx: DriverContext) => void): void {
  if (TEST_DRIVERS.includes('pg')) describeOn('pg', title, body);
}

/**
 * One `describe`, on ONE_DRIVER: for suites whose subject lies above the storage layer (the
 * dashboard, the HTTP API, logs, metrics, traces), which the driver does not change.
 */
export function describeOnOneDriver(title: string, body: (ctx: DriverContext) => void): void {
  for (const kind of ONE_DRIVER) describeOn(kind, title, body);
  after(closeSharedDatabases);
}

function describeOn(kind: DriverKind, title: string, body: (ctx: DriverContext) => void): void {
  describe(`${title} [${kind}]`, () => {
    const opened: Tidemark[] = [];
    /** The schemas this test took from the file's pool or migrated for it, with their kind. */
    const pooled: { key: PoolKey; schema: string }[] = [];
    afterEach(async () => {
      const engines = opened.splice(0);
      for (const tm of engines) await tm.close();
      const mine = new Set(pooled.map((p) => p.schema));
      for (const tm of engines) if (!mine.has(tm.schema)) await dropSchema(kind, tm.schema);
      for (const { key, schema } of pooled.splice(0)) await releaseSchema(key, schema);
    });
    after(dropPooledSchemas);
    /**
     * A schema for a test: one an earlier test left as new, or a new one the pool may hand on,
     * with the pool's key. A test that names its own, opens another database than the run's or
     * opens without migrating gets what it asked for, and no key.
     */
    const schemaFor = async (
      variant: SchemaVariant,
      options: { schema?: string; migrate?: boolean; database?: unknown },
    ): Promise<{ schema: string; key: PoolKey | null }> => {
      if (options.schema !== undefined || options.database !== undefined || options.migrate === false) {
        return { schema: options.schema ?? freshSchema(), key: null };
      }
      const key: PoolKey = { kind, database: await databaseOf(kind), variant };
      const schema = takeSchema(key) ?? freshSchema();
      pooled.push({ key, schema });
      return { schema, key };
    };
    /** Keep the engine for afterEach; a new schema from the pool is noted before the test writes. */
    const opening = async <T extends Tidemark>(tm: T, key: PoolKey | null): Promise<T> => {
      opened.push(tm);
      if (key) await adoptSchema(key, tm.schema);
      return tm;
    };
    body({
      kind,
      async open(options = {}) {
        const { schema, key } = await schemaFor('plain', options);
        return opening(await openOn(kind, { ...options, schema }), key);
      },
      async openOnClock(options = {}) {
        const { schema, key } = await schemaFor('clock', options);
        return opening(await TestTidemark.openOn(await databaseOf(kind), { ...options, schema }), key);
      },
    });
  });
}
