import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidOptionError,
  InvalidRetentionPolicyError,
  QueueNotFoundError,
  Retention,
  silentLogger,
  type Tidemark,
} from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob } from '../support/factory.js';
import { waitForStatus } from '../support/jobs.js';

const DAY = 86_400;

/** Each job's frozen windows and its purge time as seconds after its finish (null: none). */
async function windowsOf(tm: Tidemark, ids: string[]) {
  const rows = await rawQuery<{ id: string; retention: unknown; delay: number | null }>(
    tm,
    `select id::text as id, retention,
            extract(epoch from purge_after - finished_at)::float8 as delay
       from "${tm.schema}".jobs where id = any($1::bigint[]) order by id`,
    [ids],
  );
  return rows.map((r) => ({ retention: r.retention, delay: r.delay === null ? null : Math.round(r.delay) }));
}
describeEachDriver('applyRetention: a policy applied to history', ({ open }) => {
  test('a tighter policy re-freezes finished jobs from their finish time; the next sweep deletes them', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'emails' });
    const old = [
      await insertJob(tm, {
        queue: 'emails',
        status: 'completed',
        finishedAt: -10 * DAY,
        retention: Retention.STOCK,
      }),
      await insertJob(tm, {
        queue: 'emails',
        status: 'failed',
        finishedAt: -10 * DAY,
        retention: Retention.STOCK,
      }),
    ];
    const other = await insertJob(tm, {
      queue: 'q',
      status: 'completed',
      finishedAt: -10 * DAY,
      retention: {},
    });
    assert.equal((await tm.sweep()).jobs, 0);

    const tight = { completed: 7 * DAY, failed: 30 * DAY };
    const preview = await tm.applyRetention({ queue: 'emails', policy: tight, dryRun: true });
    assert.deepEqual(preview, { jobs: 2, retention: tight, dryRun: true });
    assert.deepEqual(await windowsOf(tm, old), [
      { retention: Retention.STOCK, delay: 30 * DAY },
      { retention: Retention.STOCK, delay: 90 * DAY },
    ]);
    const applied = await tm.applyRetention({ queue: 'emails', policy: tight });
    assert.deepEqual(applied, { jobs: 2, retention: tight, dryRun: false });
    assert.deepEqual(await windowsOf(tm, old), [
      { retention: tight, delay: 7 * DAY },
      { retention: tight, delay: 30 * DAY },
    ]);
    assert.deepEqual(await tm.applyRetention({ queue: 'emails', policy: tight }), {
      jobs: 0,
      retention: tight,
      dryRun: false,
    });
    const swept = await tm.sweep();
    assert.deepEqual(swept.byQueue, [{ queue: 'emails', status: 'completed', count: 1 }]);
    assert.deepEqual((await existingJobs(tm)).sort(), [old[1], other].sort());
  });

  test('without a policy it applies the queue stored policy; policy: false keeps everything', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'audit', retention: { ttlSeconds: 3_600 } });
    const id = await insertJob(tm, {
      queue: 'audit',
      status: 'cancelled',
      finishedAt: -7_200,
      retention: {},
    });
    const result = await tm.applyRetention({ queue: 'audit' });
    const hour = { completed: 3_600, failed: 3_600, cancelled: 3_600, expired: 3_600 };
    assert.deepEqual(result, { jobs: 1, retention: hour, dryRun: false });
    assert.deepEqual(await windowsOf(tm, [id]), [{ retention: hour, delay: 3_600 }]);
    await tm.applyRetention({ queue: 'audit', policy: false });
    assert.deepEqual(await windowsOf(tm, [id]), [{ retention: {}, delay: null }]);
    assert.equal((await tm.sweep()).jobs, 0);
  });

  test('a queue with no stored policy gets the engine default', async () => {
    const tm = await open({ logger: silentLogger, retention: Retention.TIGHT });
    tm.createQueue({ name: 'plain' });
    const id = await insertJob(tm, { queue: 'plain', status: 'completed', finishedAt: -60, retention: {} });
    await tm.applyRetention({ queue: 'plain' });
    assert.deepEqual(await windowsOf(tm, [id]), [{ retention: Retention.TIGHT, delay: 7 * DAY }]);
  });

  test('jobs in flight carry the new windows when they finish', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'work', retention: { completed: 5 * DAY }, handler: async () => 'done' });
    const { id } = await tm.addJob({ queue: 'work' });
    await tm.applyRetention({ queue: 'work', policy: { completed: 60 } });
    const [row] = await rawQuery<{ purge_after: unknown }>(
      tm,
      `select purge_after from "${tm.schema}".jobs where id = $1`,
      [id],
    );
    assert.equal(row.purge_after, null, 'an in-flight job has no purge time');
    const worker = tm.worker({ pollIntervalSeconds: 0.05 });
    await worker.start();
    await waitForStatus(tm, id, 'completed');
    await worker.stop();
    assert.deepEqual(await windowsOf(tm, [id]), [{ retention: { completed: 60 }, delay: 60 }]);
  });

  test('bounded batches walk every status; consumed signals get their new window', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'mixed' });
    const statuses = ['completed', 'pending', 'failed', 'waiting', 'cancelled', 'expired', 'paused'] as const;
    const ids: string[] = [];
    for (const status of statuses) {
      ids.push(
        await insertJob(tm, {
          queue: 'mixed',
          status,
          retention: {},
          signals: status === 'completed' ? [{ consumedAt: -3_600 }] : [],
        }),
      );
    }
    const progress: number[] = [];
    const result = await tm.applyRetention({
      queue: 'mixed',
      policy: { ttlSeconds: 600 },
      batchSize: 2,
      onProgress: (n) => progress.push(n),
    });
    assert.equal(result.jobs, statuses.length);
    assert.deepEqual(progress, [2, 4, 6, 7]);
    const [stale] = await rawQuery<{ n: number }>(
      tm,
      `select count(*)::int as n from "${tm.schema}".jobs where queue = 'mixed' and retention = '{}'::jsonb`,
    );
    assert.equal(stale.n, 0, 'every job was re-frozen');
    const [signal] = await rawQuery<{ delay: number }>(
      tm,
      `select extract(epoch from purge_after - consumed_at)::float8 as delay from "${tm.schema}".signals`,
    );
    assert.equal(
      signal.delay,
      null,
      'the ttl shape has no consumed-signal window: the signal lives with its job',
    );
    await tm.applyRetention({ queue: 'mixed', policy: { consumedSignals: 120, completed: 600 } });
    const [again] = await rawQuery<{ delay: number }>(
      tm,
      `select extract(epoch from purge_after - consumed_at)::float8 as delay from "${tm.schema}".signals`,
    );
    assert.equal(Math.round(again.delay), 120);
  });

  test('bad input is refused with a typed error and nothing is changed', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const id = await insertJob(tm, { queue: 'q', status: 'completed', retention: { completed: 60 } });
    const cases: [unknown, (error: unknown) => boolean][] = [
      [{}, (e) => e instanceof InvalidOptionError && e.field === 'queue'],
      [{ queue: 'nope' }, (e) => e instanceof QueueNotFoundError],
      [
        { queue: 'q', policy: { completed: -1 } },
        (e) => e instanceof InvalidRetentionPolicyError && e.field === 'policy.completed',
      ],
      [{ queue: 'q', batchSize: 0 }, (e) => e instanceof InvalidOptionError && e.field === 'batchSize'],
      [{ queue: 'q', dryRun: 1 }, (e) => e instanceof InvalidOptionError && e.field === 'dryRun'],
      [{ queue: 'q', onProgress: 1 }, (e) => e instanceof InvalidOptionError && e.field === 'onProgress'],
      [{ queue: 'q', queues: ['q'] }, (e) => e instanceof InvalidOptionError && e.field === 'queues'],
    ];
    for (const [options, check] of cases) {
      await assert.rejects(tm.applyRetention(options as never), check, JSON.stringify(options));
    }
    assert.deepEqual(await windowsOf(tm, [id]), [{ retention: { completed: 60 }, delay: 60 }]);
  });
});
