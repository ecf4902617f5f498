import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { type Logger, silentLogger, type Tidemark } from '../../src/index.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/** Move a worker's last beat into the past, as if it had stopped beating that long ago. */
async function beatAgo(tm: Tidemark, id: string, seconds: number): Promise<void> {
  await rawQuery(
    tm,
    `update "${tm.schema}".workers set heartbeat_at = now() - $2 * interval '1 second' where id = $1`,
    [id, seconds],
  );
}

describeEachDriver('workers register themselves', ({ open }) => {
  test('a started worker has a row with its host, pid, queues, concurrency and sweep settings; stop deletes it', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'mail', handler: () => null });
    tm.createQueue({ name: 'billing', handler: () => null });
    const worker = fastWorker(tm, {
      id: 'w-1',
      queues: ['mail'],
      concurrency: 7,
      sweep: { intervalSeconds: 60, batchSize: 500 },
      lockSeconds: 90,
    });
    assert.deepEqual(await tm.listWorkers(), [], 'no row before start');
    await worker.start();
    const [row, ...rest] = await tm.listWorkers();
    assert.deepEqual(rest, []);
    assert.equal(row.id, 'w-1');
    assert.equal(row.host, hostname());
    assert.equal(row.pid, process.pid);
    assert.deepEqual(row.queues, ['mail']);
    assert.equal(row.concurrency, 7);
    assert.equal(row.heartbeatSeconds, 30);
    assert.equal(row.running, 0);
    assert.equal(row.gone, false);
    assert.ok(row.startedAt instanceof Date && row.heartbeatAt instanceof Date);
    assert.deepEqual(row.settings, {
      sweep: { intervalSeconds: 60, batchSize: 500 },
      uniqueLockSweep: false,
      tickIntervalSeconds: 0.1,
    });
    await worker.stop();
    assert.deepEqual(await tm.listWorkers(), [], 'stop deletes the row');
  });

  test('a worker of every queue registers null queues; a restart registers again', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'mail', handler: () => null });
    const worker = fastWorker(tm);
    await worker.start();
    const [first] = await tm.listWorkers();
    assert.equal(first.id, worker.id);
    assert.equal(first.queues, null);
    await worker.stop();
    await worker.start();
    assert.deepEqual(
      (await tm.listWorkers()).map((w) => w.id),
      [worker.id],
    );
    await tm.close();
  });

  test('the beat moves heartbeat_at and reports the attempts running', async () => {
    const tm = await open({ logger: silentLogger });
    const release = deferred();
    tm.createQueue({ name: 'slow', handler: () => release.promise });
    // A beat every 1/3 s (a third of the lock).
    const worker = fastWorker(tm, { lockSeconds: 1 });
    await worker.start();
    const [registered] = await tm.listWorkers();
    const { id } = await tm.addJob({ queue: 'slow' });
    const busy = await waitFor('a beat with one attempt running', async () => {
      const [row] = await tm.listWorkers();
      return row?.running === 1 && row.heartbeatAt > registered.heartbeatAt ? row : null;
    });
    assert.equal(busy.gone, false);
    release.resolve();
    await waitForStatus(tm, id, 'completed');
    await waitFor('a beat with nothing running', async () => (await tm.listWorkers())[0]?.running === 0);
    await worker.stop();
  });

  test('a worker that stops beating shows as gone; the tick deletes its row an hour later', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    // A beat every 200 s: none happens during the test, as if the process were dead.
    const silent = fastWorker(tm, { id: 'silent', lockSeconds: 600, tickIntervalSeconds: 86_400 });
    const alive = fastWorker(tm, { id: 'alive', lockSeconds: 600, tickIntervalSeconds: 86_400 });
    await Promise.all([silent.start(), alive.start()]);
    const core = engineOf(tm);

    await beatAgo(tm, 'silent', 500); // under three beats (600 s): still live
    const byId = async () => (await tm.listWorkers()).map((w) => [w.id, w.gone]).sort();
    assert.deepEqual(await byId(), [
      ['alive', false],
      ['silent', false],
    ]);
    await beatAgo(tm, 'silent', 700);
    assert.deepEqual(await byId(), [
      ['alive', false],
      ['silent', true],
    ]);

    await tickOnce(tickInputs(core));
    assert.ok(
      (await tm.listWorkers()).some((w) => w.id === 'silent'),
      'gone for under an hour: kept',
    );
    await beatAgo(tm, 'silent', 600 + 3_601);
    await tickOnce(tickInputs(core));
    assert.deepEqual(
      (await tm.listWorkers()).map((w) => w.id),
      ['alive'],
      'gone for over an hour: deleted by the tick; the live one stays',
    );
    await silent.stop();
    await alive.stop();
  });

  test('a worker whose row was deleted while it lived writes it again on its next beat', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    const worker = fastWorker(tm, { id: 'back', lockSeconds: 1 });
    await worker.start();
    const [before] = await tm.listWorkers();
    await rawQuery(tm, `delete from "${tm.schema}".workers`);
    const after = await waitFor('the row written again', () => tm.listWorkers().then((w) => w[0]));
    assert.equal(after.id, 'back');
    assert.equal(after.startedAt.getTime(), before.startedAt.getTime(), 'it keeps its start');
    await worker.stop();
    assert.deepEqual(await tm.listWorkers(), []);
  });

  test('jobs still run when the worker cannot write its row; the failure is logged once', async () => {
    const warnings: string[] = [];
    const quiet = () => {};
    const logger: Logger = {
      debug: quiet,
      info: quiet,
      error: quiet,
      warn: (message) => void warnings.push(message),
    };
    const tm = await open({ logger });
    tm.createQueue({ name: 'q', handler: () => 'done' });
    await tm.listQueues(); // migrated and stored
    await rawQuery(tm, `drop table "${tm.schema}".workers`);
    const worker = fastWorker(tm, { lockSeconds: 1 });
    await worker.start();
    const { id } = await tm.addJob({ queue: 'q' });
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'done');
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // a few failed beats
    await worker.stop();
    const notes = warnings.filter((w) => w.includes('workers table'));
    assert.equal(notes.length, 1, `logged once: ${JSON.stringify(warnings)}`);
  });
});
