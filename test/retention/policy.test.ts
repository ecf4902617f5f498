import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InvalidOptionError,
  InvalidRetentionPolicyError,
  JobStatus,
  Retention,
  type RetentionPolicy,
  Tidemark,
} from '../../src/index.js';
import { PG_URL, rawQuery, sharedPgliteInstance } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';

const DAY = 86_400;

describeEachDriver('retention policy', ({ kind, open }) => {
  test('Retention.STOCK and Retention.TIGHT hold the documented windows', () => {
    assert.deepEqual(
      { ...Retention.STOCK },
      {
        completed: 30 * DAY,
        failed: 90 * DAY,
        cancelled: 90 * DAY,
        expired: 90 * DAY,
        consumedSignals: 7 * DAY,
      },
    );
    assert.deepEqual(
      { ...Retention.TIGHT },
      {
        completed: 7 * DAY,
        failed: 30 * DAY,
        cancelled: 30 * DAY,
        expired: 30 * DAY,
        consumedSignals: 7 * DAY,
      },
    );
    assert.ok(Object.isFrozen(Retention.STOCK) && Object.isFrozen(Retention.TIGHT));
  });

  test('both shapes are frozen onto the job as per-status windows', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const cases: [RetentionPolicy | false, Record<string, number>][] = [
      [{ ttlSeconds: 100 }, { completed: 100, failed: 100, cancelled: 100, expired: 100 }],
      [{ ttlSeconds: 100, statuses: [JobStatus.COMPLETED] }, { completed: 100 }],
      [{ ttlSeconds: 0 }, {}],
      [
        { completed: 10, failed: 0, consumedSignals: 5 },
        { completed: 10, consumedSignals: 5 },
      ],
      [{ expired: 3 }, { expired: 3 }],
      [Retention.TIGHT, { ...Retention.TIGHT } as Record<string, number>],
      [false, {}],
    ];
    for (const [retention, frozen] of cases) {
      const { id } = await tm.addJob({ queue: 'q', retention });
      assert.deepEqual((await tm.getJob(id))?.retention, frozen, JSON.stringify(retention));
    }
  });

  test('an engine without a retention option applies Retention.STOCK', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q' });
    assert.deepEqual((await tm.getJob(id))?.retention, { ...Retention.STOCK });
  });

  test('resolution: job, else queue, else engine; each replaces the one below', async () => {
    const tm = await open({ retention: Retention.TIGHT });
    tm.createQueue({ name: 'engine-default' });
    tm.createQueue({ name: 'narrow', retention: { ttlSeconds: 259_200, statuses: [JobStatus.COMPLETED] } });
    tm.createQueue({ name: 'windows', retention: { completed: 60 } });
    tm.createQueue({ name: 'keep', retention: false });
    const retentionOf = async (queue: string, retention?: RetentionPolicy | false) => {
      const { id } = await tm.addJob({ queue, ...(retention === undefined ? {} : { retention }) });
      return (await tm.getJob(id))?.retention;
    };
    assert.deepEqual(await retentionOf('engine-default'), { ...Retention.TIGHT });
    assert.deepEqual(await retentionOf('narrow'), { completed: 259_200 });
    // A queue policy replaces the engine's: the windows it leaves out are kept forever.
    assert.deepEqual(await retentionOf('windows'), { completed: 60 });
    assert.deepEqual(await retentionOf('keep'), {});
    // A job policy is the whole policy: no statuses means every finished status.
    assert.deepEqual(await retentionOf('narrow', { ttlSeconds: 5 }), {
      completed: 5,
      failed: 5,
      cancelled: 5,
      expired: 5,
    });
    assert.deepEqual(await retentionOf('windows', false), {});
    assert.deepEqual(await retentionOf('keep', { failed: 9 }), { failed: 9 });
  });

  test('engine retention: false keeps everything by default; queues and jobs may still set a policy', async () => {
    const tm = await open({ retention: false });
    tm.createQueue({ name: 'q' });
    tm.createQueue({ name: 'own', retention: { completed: 7 } });
    const a = await tm.addJob({ queue: 'q' });
    const b = await tm.addJob({ queue: 'own' });
    assert.deepEqual((await tm.getJob(a.id))?.retention, {});
    assert.deepEqual((await tm.getJob(b.id))?.retention, { completed: 7 });
  });

  test('windows are frozen at enqueue: a changed queue policy governs later jobs only', async () => {
    const tm = await open();
    const handler = async () => 'done';
    tm.createQueue({ name: 'q', handler, retention: { completed: 100 } });
    const before = await tm.addJob({ queue: 'q' });
    tm.createQueue({ name: 'q', handler, retention: { completed: 500 } });
    const after = await tm.addJob({ queue: 'q' });
    const worker = fastWorker(tm);
    await worker.start();
    await tm.result(before.id, { timeoutSeconds: 15 });
    await tm.result(after.id, { timeoutSeconds: 15 });
    await worker.stop();
    for (const [id, window] of [
      [before.id, 100],
      [after.id, 500],
    ] as const) {
      const job = await tm.getJob(id);
      assert.ok(job?.finishedAt && job.purgeAfter);
      assert.equal(job.purgeAfter.getTime() - job.finishedAt.getTime(), window * 1000);
    }
  });

  test('a child job resolves its own policy: its options, else its queue, else the engine', async () => {
    const tm = await open({ retention: { ttlSeconds: 1_000 } });
    tm.createQueue({ name: 'leaf', handler: async () => 1, retention: { completed: 20 } });
    tm.createQueue({ name: 'plain', handler: async () => 2 });
    tm.createQueue({
      name: 'parent',
      retention: { completed: 99 },
      handler: async (_job, ctx) => {
        await ctx.runChild('leaf', {});
        await ctx.runChild('plain', {});
        await ctx.runChild('leaf', {}, { retention: { failed: 3 } });
        return 'ok';
      },
    });
    const { id } = await tm.addJob({ queue: 'parent' });
    const worker = fastWorker(tm);
    await worker.start();
    await tm.result(id, { timeoutSeconds: 20 });
    await worker.stop();
    const detail = await tm.getJobDetail(id);
    assert.deepEqual(detail?.job.retention, { completed: 99 });
    assert.deepEqual(
      detail?.children.map((c) => c.retention),
      [
        { completed: 20 },
        { completed: 1_000, failed: 1_000, cancelled: 1_000, expired: 1_000 },
        { failed: 3 },
      ],
    );
  });

  const invalid: [unknown, string][] = [
    [{ completed: -1 }, 'retention.completed'],
    [{ failed: 1.5 }, 'retention.failed'],
    [{ cancelled: Number.NaN }, 'retention.cancelled'],
    [{ expired: '3600' }, 'retention.expired'],
    [{ consumedSignals: -5 }, 'retention.consumedSignals'],
    [{ logsAfterSeconds: 0.5 }, 'retention.logsAfterSeconds'],
    [{ ttlSeconds: 10, logsAfterSeconds: 5 }, 'retention'],
    [{ ttlSeconds: -1 }, 'retention.ttlSeconds'],
    [{ ttlSeconds: 10, statuses: ['completed', 'active'] }, 'retention.statuses[1]'],
    [{ ttlSeconds: 10, statuses: ['nope'] }, 'retention.statuses[0]'],
    [{ ttlSeconds: 10, statuses: 'completed' }, 'retention.statuses'],
    [{ statuses: ['completed'] }, 'retention.ttlSeconds'],
    [{ ttlSeconds: 10, completed: 5 }, 'retention'],
    [{ completed: 5, keep: true }, 'retention.keep'],
    [{ completed: 1e12 }, 'retention.completed'],
    [null, 'retention'],
    [[], 'retention'],
    [true, 'retention'],
  ];

  test('an invalid job policy is refused with the field named and nothing is written', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    for (const [retention, field] of invalid) {
      await assert.rejects(
        tm.addJobs([{ queue: 'q' }, { queue: 'q', retention: retention as RetentionPolicy }]),
        (error: unknown) =>
          error instanceof InvalidRetentionPolicyError &&
          error instanceof InvalidOptionError &&
          error.code === 'INVALID_RETENTION_POLICY' &&
          error.field === `jobs[1].${field}`,
        `expected InvalidRetentionPolicyError on jobs[1].${field} for ${JSON.stringify(retention)}`,
      );
    }
    const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
    assert.equal(row.n, 0);
  });

  test('an invalid queue policy is refused with the field named and the queue is not stored', async () => {
    const tm = await open();
    for (const [retention, field] of invalid) {
      assert.throws(
        () => tm.createQueue({ name: 'bad', retention: retention as RetentionPolicy }),
        (error: unknown) => error instanceof InvalidRetentionPolicyError && error.field === field,
        `expected InvalidRetentionPolicyError on ${field}`,
      );
    }
    assert.deepEqual(await tm.listQueues(), []);
  });

  test('an invalid engine policy is refused before anything is created', async () => {
    const probe = await open();
    const schema = `${probe.schema}_bad`;
    for (const [retention, field] of invalid.slice(0, 4)) {
      await assert.rejects(
        Tidemark.open({
          database: kind === 'pg' ? PG_URL : await sharedPgliteInstance(),
          schema,
          retention: retention as RetentionPolicy,
        }),
        (error: unknown) => error instanceof InvalidRetentionPolicyError && error.field === field,
      );
    }
    const rows = await rawQuery(probe, 'select 1 from pg_namespace where nspname = $1', [schema]);
    assert.equal(rows.length, 0);
  });
});
