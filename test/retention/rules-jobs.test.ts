import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IN_FLIGHT_STATUSES } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob, insertTree, jobExists, passTime } from '../support/factory.js';
import { countRows } from '../support/jobs.js';

const HOUR = 3_600;

describeEachDriver('safety rules R1-R5: which jobs may go', ({ open }) => {
  test('R1: in-flight jobs are never deleted, stalled included, even with a stale purge time', async () => {
    const tm = await open();
    const kept: string[] = [];
    for (const status of IN_FLIGHT_STATUSES) {
      // A stale purge_after and finished_at must not matter: status alone protects the row.
      kept.push(await insertJob(tm, { status, finishedAt: -10 * HOUR, purgeAfter: -5 * HOUR }));
    }
    const stalled = kept[IN_FLIGHT_STATUSES.indexOf('active')];
    const [lock] = await rawQuery<{ stalled: boolean }>(
      tm,
      `select locked_until < now() as stalled from "${tm.schema}".jobs where id = $1::bigint`,
      [stalled],
    );
    assert.equal(lock.stalled, true, 'the active job reads as stalled');
    const finished = await insertJob(tm, { status: 'completed', purgeAfter: -5 * HOUR });
    assert.equal((await tm.sweep({ dryRun: true })).jobs, 1);
    const swept = await tm.sweep();
    assert.equal(swept.jobs, 1);
    assert.equal(await tm.removeJobs({ olderThanSeconds: 0 }), 0);
    assert.deepEqual(await existingJobs(tm), kept);
    assert.equal(await jobExists(tm, finished), false);
  });

  test('R2: a finished job is due once purge_after <= now(); without a purge time it stays', async () => {
    const tm = await open();
    const soon = await insertJob(tm, { status: 'completed', purgeAfter: HOUR });
    const forever = await insertJob(tm, { status: 'failed', finishedAt: -HOUR, purgeAfter: null });
    assert.equal((await tm.sweep()).jobs, 0);
    assert.equal(await jobExists(tm, soon), true);
    await passTime(tm, 2 * HOUR);
    assert.equal((await tm.sweep()).jobs, 1);
    assert.equal(await jobExists(tm, soon), false);
    await passTime(tm, 100 * 365 * 24 * HOUR);
    assert.equal((await tm.sweep()).jobs, 0);
    assert.equal(await jobExists(tm, forever), true);
  });

  test('R3: a finished child stays while its parent is in flight, or failed/cancelled and not yet due', async () => {
    const tm = await open();
    const parents = ['active', 'paused', 'waiting', 'failed', 'cancelled'] as const;
    const trees: string[][] = [];
    for (const status of parents) {
      const finished = status === 'failed' || status === 'cancelled';
      trees.push(
        await insertTree(tm, { status, purgeAfter: finished ? 10 * HOUR : null }, [
          { status: 'completed', purgeAfter: -HOUR },
        ]),
      );
    }
    assert.equal((await tm.sweep({ dryRun: true })).jobs, 0);
    assert.equal((await tm.sweep()).jobs, 0);
    for (const tree of trees) for (const id of tree) assert.equal(await jobExists(tm, id), true);
    // A manual purge ignores windows (R10) but still keeps the trees whose top is in flight.
    assert.equal(await tm.removeJobs(), 4);
    assert.deepEqual(await existingJobs(tm), trees.slice(0, 3).flat());
  });

  test('R3: a tree goes as one unit when every member is due; its life is the max of its members', async () => {
    const tm = await open();
    const tree = await insertTree(tm, { status: 'completed', purgeAfter: -HOUR }, [
      { status: 'failed', purgeAfter: 3 * HOUR },
      { status: 'completed', purgeAfter: -HOUR, parent: 1 },
      { status: 'expired', purgeAfter: 2 * HOUR },
    ]);
    const keptForever = await insertTree(tm, { status: 'completed', purgeAfter: -HOUR }, [
      { status: 'cancelled', purgeAfter: null },
    ]);
    assert.equal((await tm.sweep()).jobs, 0);
    await passTime(tm, 2.5 * HOUR);
    assert.equal((await tm.sweep()).jobs, 0, 'one member is still not due');
    await passTime(tm, HOUR);
    const preview = await tm.sweep({ dryRun: true });
    assert.equal(preview.jobs, 4);
    const swept = await tm.sweep({ batchSize: 1 });
    assert.equal(swept.jobs, 4);
    assert.deepEqual(swept.byQueue, preview.byQueue);
    for (const id of tree) assert.equal(await jobExists(tm, id), false);
    assert.deepEqual(await existingJobs(tm), keptForever);
  });

  test('R3: retrying a member of a due tree keeps the whole tree', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [root, child] = await insertTree(tm, { status: 'completed', purgeAfter: -HOUR }, [
      { status: 'failed', purgeAfter: -HOUR },
    ]);
    await tm.retryJob(child);
    assert.equal((await tm.sweep()).jobs, 0);
    assert.equal(await tm.removeJobs(), 0);
    assert.equal(await jobExists(tm, root), true);
    assert.equal((await tm.getJob(child))?.status, 'pending');
  });

  test('R4: a live unique lock pins its job; the first pass after it lapses deletes job and lock', async () => {
    const tm = await open();
    const pinned = await insertJob(tm, {
      status: 'completed',
      purgeAfter: -HOUR,
      pins: [{ expiresIn: HOUR }],
    });
    const free = await insertJob(tm, { status: 'completed', purgeAfter: -HOUR });
    assert.equal((await tm.sweep()).jobs, 1);
    assert.equal(await jobExists(tm, free), false);
    assert.equal(await jobExists(tm, pinned), true);
    assert.equal(await tm.removeJobs(), 0, 'a manual purge keeps a pinned job too');
    await passTime(tm, 2 * HOUR);
    assert.equal((await tm.sweep()).jobs, 1);
    assert.equal(await jobExists(tm, pinned), false);
    assert.equal(await countRows(tm, 'unique_locks'), 0);
  });

  test('R4: a live lock on any member pins its whole tree', async () => {
    const tm = await open();
    const tree = await insertTree(tm, { status: 'completed', purgeAfter: -HOUR }, [
      { status: 'completed', purgeAfter: -HOUR },
      { status: 'completed', purgeAfter: -HOUR, parent: 1, pins: [{ expiresIn: HOUR }] },
    ]);
    assert.equal((await tm.sweep()).jobs, 0);
    assert.equal(await tm.removeJobs(), 0);
    assert.deepEqual(await existingJobs(tm), tree);
    await passTime(tm, 2 * HOUR);
    assert.equal((await tm.sweep()).jobs, 3);
  });

  test('R4 through the API: an idempotency window keeps deduplicating past the retention window', async () => {
    const tm = await open({ retention: { completed: 60 } });
    tm.createQueue({ name: 'invoices' });
    const key = { key: 'invoice-42', ttlSeconds: 90 * 86_400 };
    const first = await tm.addJob({ queue: 'invoices', idempotencyKey: key });
    await rawQuery(
      tm,
      `update "${tm.schema}".jobs set status = 'completed', finished_at = now(), purge_after = now() where id = $1::bigint`,
      [first.id],
    );
    await passTime(tm, 31 * 86_400);
    await tm.sweep();
    const replay = await tm.addJob({ queue: 'invoices', idempotencyKey: key });
    assert.deepEqual(replay, { id: first.id, deduplicated: true });
    await passTime(tm, 60 * 86_400);
    await tm.sweep();
    assert.equal(await jobExists(tm, first.id), false);
    const later = await tm.addJob({ queue: 'invoices', idempotencyKey: key });
    assert.equal(later.deduplicated, false);
  });

  test('R5: a deleted job takes its checkpoints, signals, schedule fires and lapsed locks with it', async () => {
    const tm = await open();
    await insertTree(
      tm,
      {
        status: 'completed',
        purgeAfter: -HOUR,
        checkpoints: ['a', 'b'],
        signals: [{}, { consumedAt: -HOUR, purgeAfter: HOUR }],
        scheduleFires: ['nightly'],
        pins: [{ expiresIn: -1 }],
      },
      [{ status: 'failed', purgeAfter: -HOUR, checkpoints: ['c'], signals: [{}] }],
    );
    const swept = await tm.sweep();
    assert.equal(swept.jobs, 2);
    assert.equal(swept.signals, 0, 'no signal was deleted on its own');
    for (const table of ['jobs', 'checkpoints', 'signals', 'schedule_fires', 'unique_locks']) {
      assert.equal(await countRows(tm, table), 0, `${table} is empty`);
    }
  });
});
