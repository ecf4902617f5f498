import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { engineOf } from '../../src/engine-handle.js';
import type { Driver } from '../../src/storage/driver/driver.js';
import { NodePostgresDriver } from '../../src/storage/driver/node-postgres.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { PG_URL } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { recordingLogger, type Said } from '../support/recording-logger.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A connection string for LISTEN that cannot hear what the pool sends: the same server's other
 * database (notifications stay within a database), as a pooler in transaction mode is to a
 * client's LISTEN. The real pooler runs in its own lane: test/pooler/pgbouncer.test.ts.
 */
function deafListenUrl(): string {
  const url = new URL(PG_URL);
  url.pathname = url.pathname === '/postgres' ? '/template1' : '/postgres';
  return url.toString();
}

/** The probe's outcome for the first subscription of a driver; fails when none comes in 10 s. */
function firstProbe(driver: Driver): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the driver reported no probe outcome')), 10_000);
    const settle = (delivers: boolean) => {
      clearTimeout(timer);
      resolve(delivers);
    };
    driver.listen('tidemark_probe_test', () => {}, undefined, settle).catch(reject);
  });
}

describeEachDriver('the LISTEN probe', ({ kind, open }) => {
  test('a notification sent through the pool reaches the listening connection', async () => {
    const tm = await open();
    const { driver } = runnerOf(engineOf(tm).storage);
    assert.equal(await firstProbe(driver), true);
  });

  if (kind !== 'pg') return;

  test('a listening connection that hears nothing is reported, on the first connect', async () => {
    const driver = NodePostgresDriver.fromUrl(PG_URL, { listenUrl: deafListenUrl(), listenProbeMs: 300 });
    try {
      assert.equal(await firstProbe(driver), false);
    } finally {
      await driver.close();
    }
  });

  test('the probe runs again after the listening connection is lost and comes back', async () => {
    const deaf = deafListenUrl();
    const driver = NodePostgresDriver.fromUrl(PG_URL, { listenUrl: deaf, listenProbeMs: 300 });
    const outcomes: boolean[] = [];
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await driver.listen(
        'tidemark_probe_again',
        () => {},
        undefined,
        (delivers) => outcomes.push(delivers),
      );
      await waitFor('the first probe', () => outcomes.length === 1);
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where datname = $1 and query like '%tidemark_probe_%' and pid <> pg_backend_pid()`,
        [new URL(deaf).pathname.slice(1)],
      );
      await waitFor('the probe after the reconnect', () => outcomes.length >= 2);
      assert.deepEqual(outcomes.slice(0, 2), [false, false]);
    } finally {
      await admin.end();
      await driver.close();
    }
  });

  test('listenDatabase: the LISTEN connection is the one named, and it hears the pool', async () => {
    const driver = NodePostgresDriver.fromUrl(PG_URL, { listenUrl: PG_URL });
    try {
      assert.equal(await firstProbe(driver), true);
    } finally {
      await driver.close();
    }
  });

  test('lost notifications: one warning that says what to do, and the worker polls at 0.25 s', async () => {
    const said: Said[] = [];
    const tm = await open({ listenDatabase: deafListenUrl(), logger: recordingLogger(said) });
    tm.createQueue({ name: 'q', handler: async () => 'done' });
    // A poll of an hour: only the fallback's can pick the job up before the result times out.
    const workers = [tm.worker({ pollIntervalSeconds: 3_600 }), tm.worker({ pollIntervalSeconds: 3_600 })];
    await Promise.all(workers.map((worker) => worker.start()));
    try {
      const warned = () =>
        said.filter((s) => s.level === 'warn' && s.message.includes('LISTEN does not work'));
      await waitFor('the warning', () => warned().length > 0);
      const { id } = await tm.addJob({ queue: 'q', data: null });
      assert.equal(await tm.result(id, { timeoutSeconds: 60 }), 'done');
      const [warning, ...again] = warned();
      assert.equal(again.length, 0, 'said once per engine, not once per worker');
      assert.match(warning.message, /listenDatabase/);
      assert.match(warning.message, /session pooling/);
      assert.deepEqual(warning.fields, { pollIntervalSeconds: 0.25 });
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });
});
