import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, Tidemark, type Worker } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { findInconsistencies } from './support/consistency.js';
import { adminClient, describePg, dropFaultSchema, faultSchema, terminateApp, urlFor } from './support/pg.js';
import { type FixtureProcess, startFixture } from './support/processes.js';

const QUEUE = 'reconnect';

describePg('node-postgres driver: the connection of an open transaction is terminated', () => {
  test('the transaction rejects with the connection error and the process does not crash', async () => {
    const app = `tm_faults_txcut_${randomBytes(3).toString('hex')}`;
    const admin = await adminClient(app);
    const tm = await Tidemark.open({ database: urlFor(app), schema: faultSchema(), logger: silentLogger });
    try {
      const outcome = runnerOf(engineOf(tm).storage).driver.transaction(async (tx) => {
        const [{ pid }] = (await tx.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
        // The cut lands while no statement is running on this connection.
        await admin.query('select pg_terminate_backend($1)', [pid]);
        await waitFor('the backend to end', async () => {
          const { rows } = await admin.query('select 1 from pg_stat_activity where pid = $1', [pid]);
          return rows.length === 0;
        });
        await sleep(50);
        await tx.query('select 1');
      });
      await assert.rejects(outcome);
      // The pool replaced the broken connection: the engine still works.
      assert.deepEqual(await tm.listQueues(), []);
    } finally {
      await tm.close();
      await dropFaultSchema(admin, tm.schema);
      await admin.end();
    }
  });
});

describePg('database restart: every connection of a running worker terminated', () => {
  const run = `tm_faults_restart_${randomBytes(3).toString('hex')}`;
  const workerApp = `${run}_worker`;
  const schema = faultSchema();
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  let admin: pg.Client;
  let tm: Tidemark;
  let maintenance: Worker;
  let child: FixtureProcess;
  const added: string[] = [];
  let terminated = 0;
  let cuts = 0;
  let passed = 0;

  const q = async <Row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await admin.query(text, params)).rows as Row[];
  const defineQueue = (engine: Tidemark) =>
    engine.createQueue({ name: QUEUE, maxAttempts: 100, backoff: { delaySeconds: 0.05, jitter: false } });
  const completions = async (ids: string[]) =>
    q<{ id: string; status: string; records: number }>(
      `select j.id::text as id, j.status,
              (select count(*) from "${schema}".fault_completions c where c.job_id = j.id)::int as records
         from "${schema}".jobs j where j.id = any($1::bigint[])`,
      [ids],
    );

  before(async () => {
    process.on('unhandledRejection', onRejection);
    admin = await adminClient(run);
    tm = await Tidemark.open({ database: urlFor(`${run}_main`), schema, logger: silentLogger, poolSize: 3 });
    defineQueue(tm);
    await tm.listQueues();
    await admin.query(`create table "${schema}".fault_completions (job_id bigint not null)`);
    // Stalled-job recovery and due-work nudges come from this node, which is never cut.
    maintenance = tm.worker({
      tickIntervalSeconds: 0.5,
      pollIntervalSeconds: 3_600,
      sweep: false,
      uniqueLockSweep: false,
    });
    await maintenance.start();
    child = startFixture('reconnect-worker', {
      TM_FAULTS_URL: urlFor(workerApp),
      TM_FAULTS_SCHEMA: schema,
      TM_FAULTS_QUEUE: QUEUE,
    });
    await child.line((l) => l === 'ready');
  });

  after(async () => {
    process.off('unhandledRejection', onRejection);
    if (child && child.child.exitCode === null) child.child.kill('SIGKILL');
    await tm?.close();
    if (admin) {
      if (passed === 3) await dropFaultSchema(admin, schema);
      await admin.end();
    }
  });

  test('jobs running while every connection is cut are completed exactly once; none is lost', async (t) => {
    for (let round = 0; round < 30; round++) {
      const batch = await tm.addJobs(
        Array.from({ length: 50 }, (_, i) => ({ queue: QUEUE, data: { round, i } })),
      );
      added.push(...batch.map((r) => r.id));
      if (round % 5 === 2) {
        terminated += await terminateApp(admin, workerApp);
        cuts++;
      }
      await sleep(100);
    }
    assert.ok(terminated >= cuts, `only ${terminated} backends were terminated in ${cuts} cuts`);
    await waitFor(
      'every job to complete after the cuts',
      async () => {
        const rows = await completions(added);
        const bad = rows.filter(
          (r) => r.status !== 'completed' && !['pending', 'active', 'retry'].includes(r.status),
        );
        if (bad.length > 0) throw new Error(`jobs ended badly: ${JSON.stringify(bad.slice(0, 5))}`);
        return rows.length === added.length && rows.every((r) => r.status === 'completed');
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const rows = await completions(added);
    assert.equal(rows.length, added.length, 'jobs were lost');
    assert.deepEqual(
      rows.filter((r) => r.records !== 1),
      [],
      'each job has exactly one completion record',
    );
    assert.equal(child.child.exitCode, null, `the worker process exited:\n${child.stderr()}`);
    assert.deepEqual(await findInconsistencies(async (text, params) => q(text, params), schema), []);
    t.diagnostic(`${added.length} jobs, ${cuts} cuts, ${terminated} backends terminated`);
    passed++;
  });

  test('after a cut, LISTEN comes back: an idle worker that polls hourly is woken by NOTIFY', async () => {
    const before = await q<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [
      workerApp,
    ]);
    assert.ok((await terminateApp(admin, workerApp)) > 0);
    await waitFor(
      'the worker to LISTEN again on a new connection',
      async () => {
        // The listening connection's last statement is its own LISTEN, or the UNLISTEN that
        // ends the self-notification probe run after every reconnect.
        const rows = await q<{ pid: number }>(
          `select pid from pg_stat_activity where application_name = $1 and query ~* '^\\s*(un)?listen '`,
          [workerApp],
        );
        return rows.length > 0 && rows.every((r) => !before.some((b) => b.pid === r.pid));
      },
      { timeoutMs: 30_000 },
    );
    // Delayed, so the poll that follows the reconnect cannot find it: only a notification
    // (the maintenance node's nudge once it is due) can wake the worker, whose poll is an hour.
    const { id } = await tm.addJob({ queue: QUEUE, delaySeconds: 2 });
    const done = await waitFor(
      'the delayed job to be picked up',
      async () => (await completions([id])).find((r) => r.status === 'completed'),
      { timeoutMs: 60_000 },
    );
    assert.equal(done.records, 1);
    passed++;
  });

  test('the worker process had no unhandled rejection or crash, and stops cleanly', async () => {
    child.child.kill('SIGTERM');
    const exit = await child.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, child.stderr());
    assert.doesNotMatch(child.stderr(), /FATAL|unhandledRejection|uncaughtException/);
    assert.deepEqual(rejections, []);
    passed++;
  });
});
