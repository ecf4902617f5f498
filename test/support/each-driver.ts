import { after, afterEach, describe } from 'node:test';
import type { OpenOptions, Tidemark } from '../../src/index.js';
import { type TestKitOptions, TestTidemark } from '../../src/testing/index.js';
import {
  closeSharedPglite,
  type DriverKind,
  databaseOf,
  dropSchema,
  freshSchema,
  ONE_DRIVER,
  openOn,
  TEST_DRIVERS,
} from './databases.js';

export interface DriverContext {
  kind: DriverKind;
  /** Open Tidemark on a fresh schema; closed (and its schema dropped) after the test. */
  open(options?: OpenOptions): Promise<Tidemark>;
  /**
   * Open the test kit's engine on a fresh schema (closed and dropped after the test): its
   * clock stands still until the test moves it, so a test of a window or a timeout waits for
   * none. Its worker is `runUntilIdle`; `tm.worker()` runs one beside it, on the same clock.
   */
  openOnClock(options?: TestKitOptions): Promise<TestTidemark>;
}

/** One `describe` per driver in TIDEMARK_TEST_DRIVERS, with an `open` that cleans up after each test. */
export function describeEachDriver(title: string, body: (ctx: DriverContext) => void): void {
  for (const kind of TEST_DRIVERS) describeOn(kind, title, body);
  after(closeSharedPglite);
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
  after(closeSharedPglite);
}

function describeOn(kind: DriverKind, title: string, body: (ctx: DriverContext) => void): void {
  describe(`${title} [${kind}]`, () => {
    const opened: Tidemark[] = [];
    afterEach(async () => {
      const engines = opened.splice(0);
      for (const tm of engines) {
        await tm.close();
        await dropSchema(kind, tm.schema);
      }
    });
    body({
      kind,
      async open(options) {
        const tm = await openOn(kind, options);
        opened.push(tm);
        return tm;
      },
      async openOnClock(options) {
        const tm = await TestTidemark.openOn(await databaseOf(kind), { schema: freshSchema(), ...options });
        opened.push(tm);
        return tm;
      },
    });
  });
}
