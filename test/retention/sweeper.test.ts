import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, silentLogger, type Tidemark, type TidemarkEvents } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob, insertTree } from '../support/factory.js';
import { countRows } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

const HOUR = 3_600;

async function dueJobs(tm: Tidemark, n: number, queue = 'q'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push(await insertJob(tm, { queue, status: 'completed', purgeAfter: -HOUR - i }));
  return ids;
}

describeEachDriver('retention sweeper', ({ open }) => {
  test('on by default on every worker, every hour, 1000 per batch; it runs soon after start', async () => {
    const tm = await open({ logger: silentLogger });
    await dueJobs(tm, 3);
    let event: TidemarkEvents['sweep:finished'] | undefined;
    tm.on('sweep:finished', (e) => {
      event = e;
    });
    const worker = tm.worker();
    assert.deepEqual(worker.options.sweep, { intervalSeconds: 3_600, batchSize: 1_000 });
    assert.deepEqual(worker.options.uniqueLockSweep, { intervalSeconds: 3_600, batchSize: 1_000 });
    await worker.start();
    assert.ok(worker.service('retention'));
    assert.ok(worker.service('unique-locks'));
    const first = await waitFor('the first background sweep', () => event);
    await worker.stop();
    assert.equal(first.jobs, 3);
    assert.equal(await countRows(tm, 'jobs'), 0);
  });

  test('sweep options are checked: batchSize 1..10000 (larger clamped), a positive interval', async () => {
    const tm = await open();
    const cases: [unknown, string][] = [
      [{ sweep: { batchSize: 0 } }, 'sweep.batchSize'],
      [{ sweep: { batchSize: 1.5 } }, 'sweep.batchSize'],
      [{ sweep: { intervalSeconds: 0 } }, 'sweep.intervalSeconds'],
      [{ sweep: { every: 5 } }, 'sweep.every'],
      [{ sweep: true }, 'sweep'],
      [{ uniqueLockSweep: { batchSize: -1 } }, 'uniqueLockSweep.batchSize'],
      [{ uniqueLockSweep: { intervalSeconds: -5 } }, 'uniqueLockSweep.intervalSeconds'],
    ];
    for (const [options, field] of cases) {
      assert.throws(
        () => tm.worker(options as never),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        field,
      );
    }
    assert.deepEqual(tm.worker({ sweep: { batchSize: 1 } }).options.sweep, {
      intervalSeconds: 3_600,
      batchSize: 1,
    });
    assert.deepEqual(tm.worker({ sweep: { intervalSeconds: 0.5 } }).options.sweep, {
      intervalSeconds: 0.5,
      batchSize: 1_000,
    });
    assert.equal(tm.worker({ sweep: false }).options.sweep, false);
  });

  test('each batch is its own statement; a pass repeats batches until one comes back short', async () => {
    const tm = await open();
    await dueJobs(tm, 25);
    const events: TidemarkEvents['sweep:finished'][] = [];
    tm.on('sweep:finished', (e) => events.push(e));
    const result = await tm.sweep({ batchSize: 10 });
    assert.deepEqual(
      { jobs: result.jobs, signals: result.signals, uniqueLocks: result.uniqueLocks },
      { jobs: 25, signals: 0, uniqueLocks: 0 },
    );
    assert.equal(events.length, 1);
    assert.equal(events[0].batches, 3, '10 + 10 + a short batch of 5');
    assert.equal(await countRows(tm, 'jobs'), 0);
    await dueJobs(tm, 20);
    await tm.sweep({ batchSize: 10 });
    assert.equal(events[1].batches, 3, '10 + 10 + an empty batch that ends the pass');
  });

  test('members go with their top, whichever batch reads their index entries', async () => {
    const tm = await open();
    const trees: string[][] = [];
    for (let t = 0; t < 3; t++) {
      trees.push(
        await insertTree(tm, { status: 'completed', purgeAfter: -HOUR }, [
          { status: 'completed', purgeAfter: -2 * HOUR },
          { status: 'failed', purgeAfter: -HOUR, parent: 1 },
          { status: 'cancelled', purgeAfter: -3 * HOUR },
        ]),
      );
    }
    const deleted: number[] = [];
    tm.on('sweep:finished', (e) => deleted.push(e.jobs));
    const result = await tm.sweep({ batchSize: 2 });
    assert.equal(result.jobs, 12);
    assert.deepEqual(deleted, [12]);
    assert.equal(await countRows(tm, 'jobs'), 0);
  });

  test('rows kept by R3 or R4 ahead in the index do not stop the pass from reaching due rows behind them', async () => {
    const tm = await open();
    const kept: string[] = [];
    for (let i = 0; i < 5; i++) {
      kept.push(
        await insertJob(tm, { status: 'completed', purgeAfter: -10 * HOUR, pins: [{ expiresIn: HOUR }] }),
      );
    }
    const due = await dueJobs(tm, 5);
    const result = await tm.sweep({ batchSize: 2 });
    assert.equal(result.jobs, 5);
    assert.deepEqual(await existingJobs(tm), kept);
    assert.ok(due.length === 5);
  });

  test('tm.sweep() returns { jobs, signals, uniqueLocks, byQueue }; dryRun counts per queue and status, deleting nothing', async () => {
    const tm = await open();
    await dueJobs(tm, 2, 'emails');
    await insertJob(tm, { queue: 'emails', status: 'failed', purgeAfter: -HOUR });
    await insertJob(tm, { queue: 'reports', status: 'expired', purgeAfter: -HOUR });
    await insertJob(tm, { queue: 'reports', status: 'completed', purgeAfter: HOUR });
    await insertJob(tm, {
      queue: 'reports',
      status: 'waiting',
      retention: { consumedSignals: 60 },
      signals: [{ consumedAt: -HOUR }],
      pins: [{ expiresIn: -1 }],
    });
    const preview = await tm.sweep({ dryRun: true });
    assert.deepEqual(preview, {
      dryRun: true,
      jobs: 4,
      signals: 1,
      uniqueLocks: 1,
      byQueue: [
        { queue: 'emails', status: 'completed', count: 2 },
        { queue: 'emails', status: 'failed', count: 1 },
        { queue: 'reports', status: 'expired', count: 1 },
      ],
    });
    assert.equal(await countRows(tm, 'jobs'), 6, 'a dry run deletes nothing');
    assert.equal(await countRows(tm, 'signals'), 1);
    assert.equal(await countRows(tm, 'unique_locks'), 1);
    const result = await tm.sweep();
    assert.deepEqual(result, {
      jobs: 4,
      signals: 1,
      uniqueLocks: 1,
      byQueue: preview.byQueue,
    });
    assert.deepEqual(await tm.sweep({ dryRun: true }), {
      dryRun: true,
      jobs: 0,
      signals: 0,
      uniqueLocks: 0,
      byQueue: [],
    });
  });

  test('one node sweeps per interval across the cluster (two engines on one schema)', async () => {
    const a = await open({ logger: silentLogger });
    const b = await open({ logger: silentLogger, schema: a.schema });
    await dueJobs(a, 4);
    let sweeps = 0;
    for (const tm of [a, b]) tm.on('sweep:finished', () => sweeps++);
    const workers = [a.worker({ uniqueLockSweep: false }), b.worker({ uniqueLockSweep: false })];
    for (const worker of workers) await worker.start();
    const services = workers.map((w) => w.service('retention'));
    assert.ok(services[0] && services[1]);
    await Promise.all([
      services[0].runNow(),
      services[1].runNow(),
      services[0].runNow(),
      services[1].runNow(),
    ]);
    await Promise.all(services.map((s) => s?.runNow()));
    assert.equal(sweeps, 1, 'one sweep for the interval, whichever node won it');
    const [turn] = await rawQuery<{ last_run_at: Date; last_result: { jobs: number } }>(
      a,
      `select last_run_at, last_result from "${a.schema}".maintenance where name = 'retention-sweep'`,
    );
    assert.ok(turn.last_run_at instanceof Date);
    assert.equal(turn.last_result.jobs, 4, 'the turn row holds the last sweep and its counts');
    // The next interval: whichever node asks first sweeps again, once.
    await rawQuery(
      a,
      `update "${a.schema}".maintenance set last_run_at = last_run_at - interval '2 hours' where name = 'retention-sweep'`,
    );
    await Promise.all([services[1].runNow(), services[0].runNow()]);
    await waitFor('the second interval to be swept', () => sweeps === 2);
    for (const worker of workers) await worker.stop();
    assert.equal(sweeps, 2);
  });

  test('sweep: false turns it off on that node only', async () => {
    const tm = await open({ logger: silentLogger });
    await dueJobs(tm, 2);
    const off = tm.worker({ sweep: false });
    const on = tm.worker({ uniqueLockSweep: false });
    await off.start();
    await on.start();
    assert.equal(off.service('retention'), undefined);
    await on.service('retention')?.runNow();
    await off.stop();
    await on.stop();
    assert.equal(await countRows(tm, 'jobs'), 0);
  });

  test('tm.sweep() checks its options', async () => {
    const tm = await open();
    for (const [options, field] of [
      [{ dryRun: 'yes' }, 'dryRun'],
      [{ batchSize: 0 }, 'batchSize'],
      [{ limit: 1 }, 'limit'],
    ] as const) {
      await assert.rejects(
        tm.sweep(options as never),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
      );
    }
  });
});
