import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TidemarkEvents } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';
import { captureLogger } from './support/capture-logger.js';

const HOUR = 3_600;

describeEachDriver('sweep observability', ({ kind, open }) => {
  test('each sweep emits an event and a debug line with its counts and duration', async () => {
    const { logger, lines } = captureLogger();
    const tm = await open({ logger });
    await insertJob(tm, { queue: 'a', status: 'completed', purgeAfter: -HOUR });
    await insertJob(tm, { queue: 'b', status: 'failed', purgeAfter: -HOUR, pins: [] });
    await insertJob(tm, {
      status: 'waiting',
      retention: { consumedSignals: 1 },
      signals: [{ consumedAt: -HOUR }],
      pins: [{ expiresIn: -1 }],
    });
    const events: TidemarkEvents['sweep:finished'][] = [];
    tm.on('sweep:finished', (e) => events.push(e));
    await tm.sweep();
    assert.equal(events.length, 1);
    const [event] = events;
    assert.deepEqual(
      { jobs: event.jobs, signals: event.signals, uniqueLocks: event.uniqueLocks, byQueue: event.byQueue },
      {
        jobs: 2,
        signals: 1,
        uniqueLocks: 1,
        byQueue: [
          { queue: 'a', status: 'completed', count: 1 },
          { queue: 'b', status: 'failed', count: 1 },
        ],
      },
    );
    assert.equal(typeof event.durationMs, 'number');
    assert.ok(event.durationMs >= 0);
    assert.equal(event.batches, 1);
    const [debug] = lines('retention sweep finished');
    assert.equal(debug.level, 'debug');
    assert.deepEqual(
      { ...debug.fields, durationMs: typeof debug.fields.durationMs },
      { jobs: 2, signals: 1, uniqueLocks: 1, batches: 1, durationMs: 'number' },
    );
  });

  test('the unique-lock sweep emits its own event and debug line', async () => {
    const { logger, lines } = captureLogger();
    const tm = await open({ logger });
    await insertJob(tm, { status: 'pending', pins: [{ expiresIn: -1 }, { expiresIn: -2 }] });
    const events: TidemarkEvents['unique-lock-sweep:finished'][] = [];
    tm.on('unique-lock-sweep:finished', (e) => events.push(e));
    const worker = tm.worker({ sweep: false });
    await worker.start();
    await worker.service('unique-locks')?.runNow();
    await worker.stop();
    assert.equal(events[0]?.uniqueLocks, 2);
    assert.equal(lines('unique-lock sweep finished')[0]?.fields.uniqueLocks, 2);
  });

  test('tm.listSweeps() returns the last sweeps, newest first, as typed camelCase records', async () => {
    const tm = await open({ logger: captureLogger().logger });
    await insertJob(tm, { queue: 'a', status: 'completed', purgeAfter: -HOUR });
    await tm.sweep();
    await insertJob(tm, { status: 'pending', pins: [{ expiresIn: -1 }] });
    const worker = tm.worker({ sweep: false });
    await worker.start();
    await worker.service('unique-locks')?.runNow();
    await worker.stop();
    await tm.sweep();
    const sweeps = await tm.listSweeps();
    assert.deepEqual(
      sweeps.map((s) => [s.kind, s.jobs, s.uniqueLocks]),
      [
        ['retention', 0, 0],
        ['unique-locks', 0, 1],
        ['retention', 1, 0],
      ],
    );
    const oldest = sweeps[2];
    assert.deepEqual(Object.keys(oldest).sort(), [
      'batches',
      'byQueue',
      'durationMs',
      'error',
      'finishedAt',
      'id',
      'jobs',
      'kind',
      'paused',
      'signals',
      'startedAt',
      'uniqueLocks',
    ]);
    assert.equal(typeof oldest.id, 'string');
    assert.ok(oldest.startedAt instanceof Date && oldest.finishedAt instanceof Date);
    assert.ok(oldest.finishedAt.getTime() >= oldest.startedAt.getTime());
    assert.deepEqual(oldest.byQueue, [{ queue: 'a', status: 'completed', count: 1 }]);
    assert.equal(oldest.batches, 1);
    assert.equal(oldest.error, null);
    assert.equal((await tm.listSweeps(1)).length, 1);
  });

  test('the sweep history bounds itself', async () => {
    const tm = await open();
    await rawQuery(
      tm,
      `insert into "${tm.schema}".sweeps (kind, started_at, finished_at)
       select 'retention', now() - g * interval '1 minute', now() from generate_series(1, 600) g`,
    );
    await tm.sweep();
    const [row] = await rawQuery<{ n: number }>(
      tm,
      `select count(*)::int as n from "${tm.schema}".sweeps where kind = 'retention'`,
    );
    assert.ok(row.n <= 501, `${row.n} records kept`);
    assert.equal((await tm.listSweeps(500)).length, 500);
  });

  test('on PGlite a sweep that deleted rows vacuums the swept tables (autovacuum never runs there)', async () => {
    const tm = await open();
    const lastVacuum = async () => {
      const [row] = await rawQuery<{ last_vacuum: Date | null }>(
        tm,
        `select last_vacuum from pg_stat_user_tables where schemaname = $1 and relname = 'jobs'`,
        [tm.schema],
      );
      return row.last_vacuum;
    };
    await tm.sweep();
    assert.equal(await lastVacuum(), null, 'nothing deleted, nothing to reclaim');
    await insertJob(tm, { status: 'completed', purgeAfter: -HOUR });
    await tm.sweep();
    if (kind === 'pglite') assert.ok((await lastVacuum()) instanceof Date);
    else assert.equal(await lastVacuum(), null, 'PostgreSQL leaves it to autovacuum');
    await insertJob(tm, { status: 'completed', finishedAt: -HOUR });
    const before = await lastVacuum();
    assert.equal(await tm.removeJobs(), 1);
    if (kind === 'pglite') assert.ok(((await lastVacuum())?.getTime() ?? 0) >= (before?.getTime() ?? 0));
  });
});
