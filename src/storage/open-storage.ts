import { type CreateDriverOptions, createDriver, type DatabaseOption } from './driver/create-driver.js';
import type { Driver } from './driver/driver.js';
import { checkSchema, migrate, schemaVersion } from './migrate.js';
import { latestVersion } from './migrations/index.js';
import { Runner } from './runner.js';
import { bindSchema } from './schema-name.js';
import { INSTALL_TEST_CLOCK, onTestClock, setTestClock } from './sql/test-kit.js';
import { Storage } from './storage.js';

export { DATABASE_EXPECTED, isDatabaseOption, isPostgresUrl } from './driver/create-driver.js';
export { checkSchemaName } from './schema-name.js';

/** How to open Tidemark's storage on a database. */
export interface OpenStorageOptions extends CreateDriverOptions {
  schema: string;
  /** Apply pending migrations (true), or only check the schema is at this version (false). */
  migrate: boolean;
  /** Offer the retention capability (deleting due rows). */
  hasRetention: boolean;
  /**
   * Run on the test kit's clock, starting at this moment: every statement reads the time from
   * it (sql/test-kit.ts), and `storage.testKit.setTestClock` moves it. For `tidemark/testing`.
   */
  testClockAt?: Date;
}

/**
 * Connect, migrate or check the schema, and return the storage. The connection is closed
 * again when the schema step fails.
 */
export async function openStorage(database: DatabaseOption, options: OpenStorageOptions): Promise<Storage> {
  const { schema, migrate: apply, hasRetention, testClockAt, ...driverOptions } = options;
  // A seed is migrated on the system clock, and it would make a schema the caller only checks.
  const seedSchema = apply && !testClockAt ? schema : undefined;
  const driver = await createDriver(database, { ...driverOptions, seedSchema });
  const rewrite = testClockAt ? (text: string) => onTestClock(text, schema) : undefined;
  try {
    if (testClockAt) await installTestClock(driver, schema, testClockAt);
    if (apply) await migrate(driver, schema, rewrite);
    else await checkSchema(driver, schema);
  } catch (error) {
    await driver.close();
    throw error;
  }
  return new Storage(driver, schema, hasRetention, rewrite);
}

/** The test clock's table and function, set at `at`, before the migrations that call it. */
async function installTestClock(driver: Driver, schema: string, at: Date): Promise<void> {
  await driver.exec(`create schema if not exists "${schema}";${bindSchema(INSTALL_TEST_CLOCK, schema)}`);
  await new Runner(driver, schema).run(setTestClock, { at });
}

/** What `tidemark migrate` did: the version before, the migrations applied, the version now. */
export interface MigrationReport {
  before: number;
  applied: number[];
  latest: number;
}

/** Bring a schema up to this version's migrations on a connection of its own, then close it. */
export async function migrateDatabase(database: DatabaseOption, schema: string): Promise<MigrationReport> {
  const driver = await createDriver(database);
  try {
    const before = await schemaVersion(driver, schema);
    const applied = await migrate(driver, schema);
    return { before, applied, latest: latestVersion };
  } finally {
    await driver.close();
  }
}
