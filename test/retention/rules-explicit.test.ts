import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  IN_FLIGHT_STATUSES,
  InvalidOptionError,
  JobHasChildrenError,
  JobInFlightError,
  JobNotFoundError,
  silentLogger,
} from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob, insertTree, jobExists, passTime } from '../support/factory.js';
import { countRows } from '../support/jobs.js';

const HOUR = 3_600;

describeEachDriver('safety rules R8-R10: lock sweep, explicit deletes, manual purge', ({ open }) => {
  test('R8: expired unique locks go by their own sweep, on even with retention and the sweep off', async () => {
    const tm = await open({ retention: false, logger: silentLogger });
    const job = await insertJob(tm, {
      status: 'pending',
      pins: [{ expiresIn: -HOUR }, { expiresIn: -1 }, { expiresIn: HOUR }],
    });
    const worker = tm.worker({ sweep: false });
    assert.equal(worker.service('unique-locks'), undefined, 'services exist once started');
    await worker.start();
    const service = worker.service('unique-locks');
    assert.ok(service, 'the unique-lock sweep runs with retention and the retention sweep off');
    assert.equal(worker.service('retention'), undefined);
    const swept: number[] = [];
    tm.on('unique-lock-sweep:finished', (e) => swept.push(e.uniqueLocks));
    await service.runNow();
    assert.deepEqual(swept, [2]);
    await worker.stop();
    assert.equal(await countRows(tm, 'unique_locks'), 1, 'the live lock stays');
    assert.equal(await jobExists(tm, job), true, 'the lock sweep deletes locks, never jobs');
  });

  test('R8: an expired lock is replaceable at enqueue time even before the sweep', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const key = { key: 'k', ttlSeconds: 60 };
    const first = await tm.addJob({ queue: 'q', idempotencyKey: key });
    assert.deepEqual(await tm.addJob({ queue: 'q', idempotencyKey: key }), {
      id: first.id,
      deduplicated: true,
    });
    await passTime(tm, 120);
    const second = await tm.addJob({ queue: 'q', idempotencyKey: key });
    assert.equal(second.deduplicated, false);
    assert.notEqual(second.id, first.id);
  });

  test('R9: deleteJob deletes a finished job at once with everything attached, releasing its lock', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const key = { key: 'invoice-7', ttlSeconds: 90 * 86_400 };
    const { id } = await tm.addJob({ queue: 'q', idempotencyKey: key });
    await rawQuery(
      tm,
      `update "${tm.schema}".jobs set status = 'completed', finished_at = now() where id = $1::bigint`,
      [id],
    );
    await rawQuery(tm, `insert into "${tm.schema}".checkpoints (job_id, name) values ($1::bigint, 'a')`, [
      id,
    ]);
    await tm.deleteJob(id);
    assert.equal(await tm.getJob(id), null);
    for (const table of ['checkpoints', 'unique_locks']) assert.equal(await countRows(tm, table), 0, table);
    const again = await tm.addJob({ queue: 'q', idempotencyKey: key });
    assert.equal(again.deduplicated, false, 'the live window was released with the job');
    await assert.rejects(tm.deleteJob(id), JobNotFoundError);
  });

  test('R9: deleteJob refuses in-flight jobs (cancel first) and jobs with children', async () => {
    const tm = await open();
    for (const status of IN_FLIGHT_STATUSES) {
      const id = await insertJob(tm, { status });
      await assert.rejects(
        tm.deleteJob(id),
        (error: unknown) => error instanceof JobInFlightError && error.status === status,
        status,
      );
      assert.equal(await jobExists(tm, id), true);
    }
    const [root] = await insertTree(tm, { status: 'completed' }, [{ status: 'completed' }]);
    await assert.rejects(tm.deleteJob(root), JobHasChildrenError);
    assert.equal(await jobExists(tm, root), true);
  });

  test('R9: deleteWorkflowSubtree deletes a finished subtree, and refuses one with an in-flight member', async () => {
    const tm = await open();
    const done = await insertTree(tm, { status: 'failed', signals: [{}] }, [
      { status: 'completed', pins: [{ expiresIn: HOUR }] },
      { status: 'cancelled', parent: 1, checkpoints: ['x'] },
    ]);
    const busy = await insertTree(tm, { status: 'completed' }, [
      { status: 'completed' },
      { status: 'retry', parent: 1 },
    ]);
    assert.equal(await tm.deleteWorkflowSubtree(done[0]), 3);
    await assert.rejects(
      tm.deleteWorkflowSubtree(busy[0]),
      (error: unknown) => error instanceof JobInFlightError && error.jobId === busy[2],
    );
    assert.deepEqual(await existingJobs(tm), busy);
    for (const table of ['signals', 'checkpoints', 'unique_locks'])
      assert.equal(await countRows(tm, table), 0);
    await assert.rejects(tm.deleteWorkflowSubtree(done[0]), JobNotFoundError);
  });

  test('R10: removeJobs is a flat cutoff on finished_at that ignores the frozen windows', async () => {
    const tm = await open();
    const old = await insertJob(tm, { status: 'completed', finishedAt: -10 * HOUR, purgeAfter: null });
    const notDue = await insertJob(tm, { status: 'failed', finishedAt: -10 * HOUR, purgeAfter: 100 * HOUR });
    const young = await insertJob(tm, { status: 'completed', finishedAt: -HOUR, purgeAfter: -1 });
    assert.equal(await tm.removeJobs({ olderThanSeconds: 5 * HOUR, dryRun: true }), 2);
    assert.deepEqual(await existingJobs(tm), [old, notDue, young], 'a dry run deletes nothing');
    assert.equal(await tm.removeJobs({ olderThanSeconds: 5 * HOUR }), 2);
    assert.deepEqual(await existingJobs(tm), [young]);
  });

  test('R10: removeJobs filters by queue and status, and keeps R1, R3 and R4', async () => {
    const tm = await open();
    const a = await insertJob(tm, { queue: 'a', status: 'completed', finishedAt: -HOUR });
    const aFailed = await insertJob(tm, { queue: 'a', status: 'failed', finishedAt: -HOUR });
    const b = await insertJob(tm, { queue: 'b', status: 'completed', finishedAt: -HOUR });
    const inFlight = await insertJob(tm, { queue: 'a', status: 'active', finishedAt: -HOUR });
    const pinned = await insertJob(tm, { queue: 'a', status: 'completed', pins: [{ expiresIn: HOUR }] });
    const mixed = await insertTree(tm, { queue: 'a', status: 'completed', finishedAt: -HOUR }, [
      { status: 'failed', finishedAt: -HOUR },
    ]);
    const growing = await insertTree(tm, { queue: 'a', status: 'completed', finishedAt: -HOUR }, [
      { status: 'pending' },
    ]);
    assert.equal(await tm.removeJobs({ queue: 'a', statuses: ['completed'] }), 1);
    assert.equal(await jobExists(tm, a), false);
    assert.deepEqual(await existingJobs(tm), [aFailed, b, inFlight, pinned, ...mixed, ...growing]);
    assert.equal(await tm.removeJobs({ queue: 'a' }), 3, 'a failed job and the mixed tree');
    assert.deepEqual(await existingJobs(tm), [b, inFlight, pinned, ...growing]);
  });

  test('R10: removeJobs loops bounded deletes, each its own statement, and returns the total', async () => {
    const tm = await open();
    for (let i = 0; i < 25; i++) await insertJob(tm, { status: 'completed', finishedAt: -HOUR - i });
    const progress: number[] = [];
    const total = await tm.removeJobs({ batchSize: 10, onProgress: (n) => progress.push(n) });
    assert.equal(total, 25);
    assert.deepEqual(progress, [10, 20, 25]);
    assert.equal(await countRows(tm, 'jobs'), 0);
  });

  test('R10: removeJobs refuses in-flight statuses and bad options, deleting nothing', async () => {
    const tm = await open();
    await insertJob(tm, { status: 'completed' });
    const cases: [unknown, string][] = [
      [{ statuses: ['active'] }, 'statuses[0]'],
      [{ statuses: [] }, 'statuses'],
      [{ olderThanSeconds: -1 }, 'olderThanSeconds'],
      [{ batchSize: 0 }, 'batchSize'],
      [{ batchSize: 1.5 }, 'batchSize'],
      [{ dryRun: 'yes' }, 'dryRun'],
      [{ queues: 'a' }, 'queues'],
    ];
    for (const [options, field] of cases) {
      await assert.rejects(
        tm.removeJobs(options as never),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        field,
      );
    }
    assert.equal(await countRows(tm, 'jobs'), 1);
  });
});
