import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { Retention, silentLogger, type Tidemark } from '../../src/index.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';

async function frozen(tm: Tidemark, id: string) {
  const job = await tm.getJob(id);
  return { retention: job?.retention, maxAttempts: job?.maxAttempts };
}

/**
 * Two engines on one database: `owner` defines the queue, `producer` never does. Every add
 * from the producer takes the policy stored when it runs, never one it read earlier.
 */
describeEachDriver('a queue stored policy reaches every process', ({ open }) => {
  test('a producer that never defined the queue follows each change of its stored policy', async () => {
    const owner = await open({ logger: silentLogger });
    const producer = await open({ logger: silentLogger, schema: owner.schema });
    owner.createQueue({ name: 'emails', retention: { completed: 600 }, maxAttempts: 4 });
    await owner.listQueues();
    const first = await producer.addJob({ queue: 'emails' });
    assert.deepEqual(await frozen(producer, first.id), { retention: { completed: 600 }, maxAttempts: 4 });

    owner.createQueue({ name: 'emails', retention: { completed: 60 }, maxAttempts: 2 });
    await owner.listQueues();
    const [second, third] = await producer.addJobs([
      { queue: 'emails' },
      { queue: 'emails', maxAttempts: 9 },
    ]);
    assert.deepEqual(await frozen(producer, second.id), { retention: { completed: 60 }, maxAttempts: 2 });
    assert.deepEqual(await frozen(producer, third.id), { retention: { completed: 60 }, maxAttempts: 9 });
    const locked = await producer.addJob({ queue: 'emails', uniqueFor: 60 });
    assert.deepEqual(await frozen(producer, locked.id), { retention: { completed: 60 }, maxAttempts: 2 });
    const unique = await producer.addJob({ queue: 'emails', unique: 'k' });
    assert.deepEqual(await frozen(producer, unique.id), { retention: { completed: 60 }, maxAttempts: 2 });

    owner.createQueue({ name: 'emails' });
    await owner.listQueues();
    const fourth = await producer.addJob({ queue: 'emails' });
    assert.deepEqual(
      (await frozen(producer, fourth.id)).retention,
      { ...Retention.STOCK },
      'a queue that stores no policy: the engine default',
    );
    const own = await producer.addJob({ queue: 'emails', retention: { ttlSeconds: 5 } });
    assert.deepEqual((await frozen(producer, own.id)).retention, {
      completed: 5,
      failed: 5,
      cancelled: 5,
      expired: 5,
    });
  });

  test('a scheduler node fires with the stored policy', async () => {
    const owner = await open({ logger: silentLogger });
    const scheduler = await open({ logger: silentLogger, schema: owner.schema });
    owner.createQueue({ name: 'reports', retention: { completed: 120 } });
    await owner.listQueues();
    await scheduler.schedule({ name: 'nightly', cron: '* * * * * *', queue: 'reports' });
    owner.createQueue({ name: 'reports', retention: { completed: 30 } });
    await owner.listQueues();
    await rawQuery(
      owner,
      `update "${owner.schema}".schedules set last_fire_at = now() - interval '10 seconds'`,
    );
    assert.equal((await tickOnce(tickInputs(engineOf(scheduler)))).scheduled, 1);
    const [job] = await rawQuery<{ retention: unknown }>(
      owner,
      `select retention from "${owner.schema}".jobs`,
    );
    assert.deepEqual(job.retention, { completed: 30 });
  });

  test('a workflow child on a queue defined only by another service takes its stored policy', async () => {
    const owner = await open({ logger: silentLogger });
    const flows = await open({ logger: silentLogger, schema: owner.schema });
    owner.createQueue({ name: 'shipping', retention: { completed: 900 } });
    await owner.listQueues();
    flows.createQueue({ name: 'order', handler: async (_job, ctx) => ctx.runChild('shipping', {}) });
    const worker = fastWorker(flows);
    await worker.start();
    const { id } = await flows.addJob({ queue: 'order' });
    await waitForStatus(flows, id, 'waiting');
    owner.createQueue({ name: 'shipping', retention: { completed: 45 } });
    await owner.listQueues();
    const second = await flows.addJob({ queue: 'order' });
    await waitForStatus(flows, second.id, 'waiting');
    await worker.stop();
    const [a] = (await flows.getJobDetail(id))?.children ?? [];
    const [b] = (await flows.getJobDetail(second.id))?.children ?? [];
    assert.deepEqual(a.retention, { completed: 900 });
    assert.deepEqual(b.retention, { completed: 45 });
  });
});
