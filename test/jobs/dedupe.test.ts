import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobStatus, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';

async function expireLocks(tm: Tidemark): Promise<void> {
  await rawQuery(tm, `update "${tm.schema}".unique_locks set expires_at = now() - interval '1 second'`);
}

describeEachDriver('idempotencyKey', ({ open }) => {
  test('a duplicate returns the original id; after the ttl a new job is created', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const key = { key: 'order-17', ttlSeconds: 3_600 };
    const first = await tm.addJob({ queue: 'q', data: { n: 1 }, idempotencyKey: key });
    assert.equal(first.deduplicated, false);
    // different data, same key: still the original
    const dup = await tm.addJob({ queue: 'q', data: { n: 2 }, idempotencyKey: key });
    assert.deepEqual(dup, { id: first.id, deduplicated: true });
    assert.equal(await countRows(tm, 'jobs'), 1);
    assert.deepEqual((await tm.getJob(first.id))?.data, { n: 1 });

    await expireLocks(tm);
    const fresh = await tm.addJob({ queue: 'q', data: { n: 3 }, idempotencyKey: key });
    assert.equal(fresh.deduplicated, false);
    assert.notEqual(fresh.id, first.id);
    // the replaced lock now points at the new job
    assert.deepEqual(await tm.addJob({ queue: 'q', idempotencyKey: key }), {
      id: fresh.id,
      deduplicated: true,
    });
    assert.equal(await countRows(tm, 'jobs'), 2);
    assert.equal(await countRows(tm, 'unique_locks'), 1);
  });

  test('the key is scoped to its queue', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    tm.createQueue({ name: 'b' });
    const key = { key: 'k', ttlSeconds: 60 };
    const a = await tm.addJob({ queue: 'a', idempotencyKey: key });
    const b = await tm.addJob({ queue: 'b', idempotencyKey: key });
    assert.equal(b.deduplicated, false);
    assert.notEqual(a.id, b.id);
  });

  test('the window holds after the job finished', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'done' });
    const key = { key: 'k', ttlSeconds: 3_600 };
    const first = await tm.addJob({ queue: 'q', idempotencyKey: key });
    await fastWorker(tm).start();
    await tm.result(first.id);
    assert.deepEqual(await tm.addJob({ queue: 'q', idempotencyKey: key }), {
      id: first.id,
      deduplicated: true,
    });
  });

  test('20 concurrent adds with one key create exactly one job', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        tm.addJob({ queue: 'q', data: { i }, idempotencyKey: { key: 'same', ttlSeconds: 60 } }),
      ),
    );
    const created = results.filter((r) => !r.deduplicated);
    assert.equal(created.length, 1);
    assert.ok(results.every((r) => r.id === created[0].id));
    assert.equal(await countRows(tm, 'jobs'), 1);
  });
});

describeEachDriver('uniqueFor', ({ open }) => {
  test('same data in another key order dedupes; different data does not', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const a = await tm.addJob({
      queue: 'q',
      data: { user: 7, tags: ['x', 'y'], deep: { b: 1, a: 2 } },
      uniqueFor: 60,
    });
    const same = await tm.addJob({
      queue: 'q',
      data: { deep: { a: 2, b: 1 }, tags: ['x', 'y'], user: 7 },
      uniqueFor: 60,
    });
    assert.deepEqual(same, { id: a.id, deduplicated: true });
    const otherOrderOfArray = await tm.addJob({
      queue: 'q',
      data: { user: 7, tags: ['y', 'x'], deep: { b: 1, a: 2 } },
      uniqueFor: 60,
    });
    assert.equal(otherOrderOfArray.deduplicated, false);
    const different = await tm.addJob({
      queue: 'q',
      data: { user: 8, tags: ['x', 'y'], deep: { b: 1, a: 2 } },
      uniqueFor: 60,
    });
    assert.equal(different.deduplicated, false);
    // no uniqueFor: never deduplicated
    const plain = await tm.addJob({ queue: 'q', data: { user: 7, tags: ['x', 'y'], deep: { b: 1, a: 2 } } });
    assert.equal(plain.deduplicated, false);
    assert.equal(await countRows(tm, 'jobs'), 4);
  });

  test('after the window a new job is created', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const a = await tm.addJob({ queue: 'q', data: 'x', uniqueFor: 3_600 });
    await expireLocks(tm);
    const b = await tm.addJob({ queue: 'q', data: 'x', uniqueFor: 3_600 });
    assert.equal(b.deduplicated, false);
    assert.notEqual(a.id, b.id);
  });

  test('20 concurrent adds of the same data create exactly one job', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const results = await Promise.all(
      Array.from({ length: 20 }, () => tm.addJob({ queue: 'q', data: { same: true }, uniqueFor: 60 })),
    );
    assert.equal(results.filter((r) => !r.deduplicated).length, 1);
    assert.equal(new Set(results.map((r) => r.id)).size, 1);
    assert.equal(await countRows(tm, 'jobs'), 1);
  });
});

describeEachDriver('unique', ({ open }) => {
  test('unique: true allows one in-flight job per data; once it completes a new add is new', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'done' });
    const first = await tm.addJob({ queue: 'q', data: { b: 2, a: 1 }, unique: true });
    const dup = await tm.addJob({ queue: 'q', data: { a: 1, b: 2 }, unique: true });
    assert.deepEqual(dup, { id: first.id, deduplicated: true });
    const other = await tm.addJob({ queue: 'q', data: { a: 1, b: 3 }, unique: true });
    assert.equal(other.deduplicated, false);
    await fastWorker(tm).start();
    await waitForStatus(tm, first.id, JobStatus.COMPLETED);
    const next = await tm.addJob({ queue: 'q', data: { a: 1, b: 2 }, unique: true });
    assert.equal(next.deduplicated, false);
    assert.notEqual(next.id, first.id);
  });

  test("unique: 'key' allows one in-flight job per key, whatever the data", async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => 'done' });
    tm.createQueue({ name: 'other' });
    const first = await tm.addJob({ queue: 'q', data: 1, unique: 'sync-user-7' });
    const dup = await tm.addJob({ queue: 'q', data: 2, unique: 'sync-user-7' });
    assert.deepEqual(dup, { id: first.id, deduplicated: true });
    // per queue
    const elsewhere = await tm.addJob({ queue: 'other', data: 1, unique: 'sync-user-7' });
    assert.equal(elsewhere.deduplicated, false);
    // a cancelled holder no longer holds the key
    await tm.cancelJob(first.id);
    const afterCancel = await tm.addJob({ queue: 'q', data: 3, unique: 'sync-user-7' });
    assert.equal(afterCancel.deduplicated, false);
    await fastWorker(tm).start();
    await tm.result(afterCancel.id);
    const afterComplete = await tm.addJob({ queue: 'q', data: 4, unique: 'sync-user-7' });
    assert.equal(afterComplete.deduplicated, false);
    assert.equal(await countRows(tm, 'jobs', `queue = 'q'`), 3);
  });

  test('a batch with duplicates of one key inserts one job and points the rest at it', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const results = await tm.addJobs([
      { queue: 'q', data: 1, unique: 'k' },
      { queue: 'q', data: 2, unique: 'k' },
      { queue: 'q', data: 3 },
    ]);
    assert.equal(results[0].deduplicated, false);
    assert.deepEqual(results[1], { id: results[0].id, deduplicated: true });
    assert.equal(results[2].deduplicated, false);
    assert.equal(await countRows(tm, 'jobs'), 2);
  });

  test('20 concurrent adds with one key create exactly one job', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => tm.addJob({ queue: 'q', data: i, unique: 'one' })),
    );
    assert.equal(results.filter((r) => !r.deduplicated).length, 1);
    assert.equal(new Set(results.map((r) => r.id)).size, 1);
    assert.equal(await countRows(tm, 'jobs'), 1);
  });
});
