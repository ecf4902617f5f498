import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark, WorkerIdInUseError } from '../../src/index.js';
import { GONE_WORKER_MAX_ROWS, tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { get } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/** A pid no process has: Linux pids stop at 4,194,304. */
const DEAD_PID = 9_999_999;

/**
 * `count` rows of workers that stopped beating `secondsAgo` seconds ago (beat interval 1 s), on
 * a host whose name sorts before any real one, each with the retention sweep on.
 */
async function ghosts(tm: Tidemark, count: number, secondsAgo: number): Promise<void> {
  await rawQuery(
    tm,
    `insert into "${tm.schema}".workers
            (id, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running)
     select 'ghost-' || lpad(i::text, 5, '0'), '!ghost-host', 1, null, 1,
            '{"sweep":{"intervalSeconds":5,"batchSize":7},"uniqueLockSweep":false,"tickIntervalSeconds":5}',
            1, now() - interval '1 day', now() - ($2 + i * 0.001) * interval '1 second', 0
       from generate_series(1, $1::int) i`,
    [count, secondsAgo],
  );
}

async function rowOf(tm: Tidemark, id: string): Promise<{ instance: string; pid: number } | undefined> {
  const rows = await rawQuery<{ instance: string; pid: number }>(
    tm,
    `select instance, pid from "${tm.schema}".workers where id = $1`,
    [id],
  );
  return rows[0];
}

describeEachDriver('worker rows: live workers first, gone rows bounded, one id per process', ({ open }) => {
  test('1,200 workers gone ten minutes and one live: the live one is listed first and counted on every page', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    await ghosts(tm, 1_200, 600);
    // No tick during the test: it would trim the gone rows to the cap.
    const live = fastWorker(tm, {
      id: 'live-1',
      sweep: { intervalSeconds: 60, batchSize: 250 },
      lockSeconds: 600,
      tickIntervalSeconds: 86_400,
    });
    await live.start();

    const listed = await tm.listWorkers();
    assert.equal(listed.length, 1_000, 'the listing keeps its cap');
    assert.equal(listed[0].id, 'live-1', 'the live worker comes first');
    assert.equal(listed[0].gone, false);
    assert.ok(listed.slice(1).every((w) => w.gone));

    const dashboard = await tm.dashboard({ port: 0 });
    const workers = (await get(`${dashboard.url}workers`)).body;
    assert.match(workers, /1 live, 1,200 gone\. Showing 1,000 of 1,201, live workers first\./);
    assert.ok(workers.includes('<tr data-worker="live-1">'));
    const retention = (await get(`${dashboard.url}retention`)).body;
    assert.doesNotMatch(retention, /No live worker sweeps/);
    assert.match(
      retention,
      /1 of 1 live workers sweep\s+<span id="sweep-interval">every 1 min \(60 s\)<\/span> in batches of 250 rows/,
    );
    await live.stop();
  });

  test(`the maintenance tick keeps at most ${GONE_WORKER_MAX_ROWS} gone rows, the newest, and a running worker's tick does it`, async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    await ghosts(tm, 1_200, 600);
    const live = fastWorker(tm, { id: 'live-1', lockSeconds: 600, tickIntervalSeconds: 86_400 });
    await live.start();
    await tickOnce(tickInputs(engineOf(tm)));
    const [{ gone, newest }] = await rawQuery<{ gone: number; newest: string }>(
      tm,
      `select count(*)::int as gone, min(id) as newest from "${tm.schema}".workers where id like 'ghost-%'`,
    );
    assert.equal(gone, GONE_WORKER_MAX_ROWS, 'trimmed to the cap');
    assert.equal(newest, 'ghost-00001', 'the most recent beats are kept');
    assert.ok(await rowOf(tm, 'live-1'), 'the live worker stays');
    await live.stop();

    // Gone for more than an hour: a worker's own maintenance tick (not a test call) deletes them.
    await rawQuery(tm, `update "${tm.schema}".workers set heartbeat_at = now() - interval '2 hours'`);
    const ticking = fastWorker(tm, { id: 'ticking', tickIntervalSeconds: 0.05 });
    await ticking.start();
    await waitFor('the tick deleted the rows gone for an hour', async () => {
      const [{ n }] = await rawQuery<{ n: number }>(
        tm,
        `select count(*)::int as n from "${tm.schema}".workers where id like 'ghost-%'`,
      );
      return n === 0;
    });
    assert.ok(await rowOf(tm, 'ticking'), 'its own row stays');
    await ticking.stop();
  });

  test('a second worker under the id of a live one is refused at start, naming the id; the first keeps its row', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    // Another engine on the same schema stands for another process.
    const other = await open({ schema: tm.schema, logger: silentLogger });
    other.createQueue({ name: 'q', handler: () => null });
    const first = fastWorker(tm, { id: 'shared', lockSeconds: 600 });
    await first.start();
    const before = await rowOf(tm, 'shared');

    const second = fastWorker(other, { id: 'shared', lockSeconds: 600 });
    await assert.rejects(second.start(), (error: unknown) => {
      assert.ok(error instanceof WorkerIdInUseError, String(error));
      assert.equal(error.code, 'WORKER_ID_IN_USE');
      assert.equal(error.workerId, 'shared');
      assert.match(error.message, /worker id 'shared' is live/);
      return true;
    });
    assert.equal(second.isRunning, false);
    assert.deepEqual(await rowOf(tm, 'shared'), before, 'the first worker\u2019s row is untouched');

    await first.stop();
    await second.start();
    assert.equal((await tm.listWorkers()).length, 1, 'once the first stopped, the id is free');
    await second.stop();
  });

  test('a start that fails closes what opened beside it: the subscription of a refused worker, the row of one whose LISTEN failed', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    const other = await open({ schema: tm.schema, logger: silentLogger });
    other.createQueue({ name: 'q', handler: () => null });
    // The LISTEN opens while the worker registers: count what it opens and closes.
    const storage = engineOf(other).storage;
    const listen = storage.listen.bind(storage);
    let subscriptions = 0;
    let listenFails = false;
    storage.listen = async (...args: Parameters<typeof listen>) => {
      if (listenFails) throw new Error('listen refused');
      const subscription = await listen(...args);
      subscriptions++;
      return {
        close: async () => {
          subscriptions--;
          await subscription.close();
        },
      };
    };
    const first = fastWorker(tm, { id: 'shared', lockSeconds: 600 });
    await first.start();
    const refused = fastWorker(other, { id: 'shared', lockSeconds: 600 });
    await assert.rejects(refused.start(), WorkerIdInUseError);
    assert.equal(
      subscriptions,
      0,
      'the refused worker closed the subscription that opened beside its registration',
    );
    await first.stop();

    listenFails = true;
    const unheard = fastWorker(other, { id: 'unheard', lockSeconds: 600 });
    await assert.rejects(unheard.start(), /listen refused/);
    assert.equal(unheard.isRunning, false);
    assert.equal(await rowOf(tm, 'unheard'), undefined, 'its registration was removed');
  });

  test('a worker taking over the id of a gone one keeps its row when the gone one stops', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    const other = await open({ schema: tm.schema, logger: silentLogger });
    other.createQueue({ name: 'q', handler: () => null });
    const first = fastWorker(tm, { id: 'shared', lockSeconds: 600 });
    await first.start();
    await rawQuery(tm, `update "${tm.schema}".workers set heartbeat_at = now() - interval '1 hour'`);
    const second = fastWorker(other, { id: 'shared', lockSeconds: 600 });
    await second.start();
    const taken = await rowOf(tm, 'shared');

    await first.stop();
    assert.deepEqual(
      await rowOf(tm, 'shared'),
      taken,
      'the first one\u2019s stop deleted nothing of the second',
    );
    await second.stop();
    assert.equal(await rowOf(tm, 'shared'), undefined);
  });

  test('a live row left by a process that no longer exists on this host is taken over (a restart with a fixed id)', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    await rawQuery(
      tm,
      `insert into "${tm.schema}".workers (id, instance, host, pid, queues, concurrency, settings, heartbeat_seconds)
       values ('fixed', 'crashed', $1, $2, null, 1, '{"sweep":false,"uniqueLockSweep":false,"tickIntervalSeconds":5}', 600)`,
      [hostname(), DEAD_PID],
    );
    const restarted = fastWorker(tm, { id: 'fixed', lockSeconds: 600 });
    await restarted.start();
    assert.equal((await rowOf(tm, 'fixed'))?.pid, process.pid);

    // The same row from another host cannot be judged from here: refused.
    await restarted.stop();
    await rawQuery(
      tm,
      `insert into "${tm.schema}".workers (id, instance, host, pid, queues, concurrency, settings, heartbeat_seconds)
       values ('fixed', 'elsewhere', 'another-host', $1, null, 1, '{"sweep":false,"uniqueLockSweep":false,"tickIntervalSeconds":5}', 600)`,
      [DEAD_PID],
    );
    await assert.rejects(restarted.start(), WorkerIdInUseError);
    assert.equal((await rowOf(tm, 'fixed'))?.instance, 'elsewhere');
  });
});
