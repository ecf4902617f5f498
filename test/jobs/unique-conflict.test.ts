import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Tidemark, UniqueKeyConflictError } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows } from '../support/jobs.js';

const IN_FLIGHT = `status in ('pending', 'active', 'retry', 'waiting', 'paused')`;

/** Every job's status, by id: to show a refused call changed nothing. */
async function statuses(tm: Tidemark): Promise<Record<string, string>> {
  const rows = await rawQuery<{ id: string; status: string }>(
    tm,
    `select id::text as id, status from "${tm.schema}".jobs order by id`,
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.status]));
}

describeEachDriver('a unique key held by another job in flight', ({ open }) => {
  for (const unique of ['key-1', true] as const) {
    test(`retryJob is refused with UniqueKeyConflictError naming the holder (unique: ${unique})`, async () => {
      const tm = await open();
      tm.createQueue({ name: 'q' });
      const first = await tm.addJob({ queue: 'q', data: { order: 1 }, unique });
      await tm.cancelJob(first.id);
      // The key is free once the first job finished: a second job takes it.
      const holder = await tm.addJob({ queue: 'q', data: { order: 1 }, unique });
      assert.equal(holder.deduplicated, false);
      const before = await statuses(tm);
      await assert.rejects(tm.retryJob(first.id), (error: unknown) => {
        assert.ok(error instanceof UniqueKeyConflictError, String(error));
        assert.equal(error.code, 'UNIQUE_KEY_CONFLICT');
        assert.equal(error.jobId, first.id);
        assert.equal(error.holderId, holder.id);
        assert.deepEqual(error.details, {
          jobId: first.id,
          queue: 'q',
          uniqueKey: error.uniqueKey,
          holderId: holder.id,
        });
        if (unique === true) assert.match(error.uniqueKey, /^data:[0-9a-f]{64}$/);
        else assert.equal(error.uniqueKey, unique);
        return true;
      });
      assert.deepEqual(await statuses(tm), before, 'nothing written');
      // Once the holder has finished, the retry goes through.
      await tm.cancelJob(holder.id);
      assert.equal((await tm.retryJob(first.id)).status, 'pending');
    });
  }

  test('adds and retries racing on one key: typed outcomes only, one job in flight per key', async (t) => {
    const tm = await open({ poolSize: 6 });
    tm.createQueue({ name: 'q' });
    const retried = await tm.addJob({ queue: 'q', unique: 'k' });
    await tm.cancelJob(retried.id);
    let conflicts = 0;
    for (let round = 0; round < 10; round++) {
      const outcomes = await Promise.allSettled([
        tm.retryJob(retried.id),
        tm.addJob({ queue: 'q', data: round, unique: 'k' }),
        tm.addJob({ queue: 'q', data: round, unique: 'k' }),
      ]);
      for (const outcome of outcomes) {
        if (outcome.status === 'fulfilled') continue;
        assert.ok(outcome.reason instanceof UniqueKeyConflictError, String(outcome.reason));
        conflicts++;
      }
      assert.equal(await countRows(tm, 'jobs', `unique_key = 'key:k' and ${IN_FLIGHT}`), 1);
      // Free the key for the next round: every job in flight is cancelled.
      for (const [id, status] of Object.entries(await statuses(tm))) {
        if (status === 'pending') await tm.cancelJob(id);
      }
    }
    // Which side won each round is up to the database; only the shape of the outcomes is fixed.
    t.diagnostic(`${conflicts} of 10 retries refused with UniqueKeyConflictError`);
  });

  test('pausing and resuming a job that holds a key keeps it: no conflict to map', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const holder = await tm.addJob({ queue: 'q', unique: 'k' });
    await tm.pauseJob(holder.id);
    // A paused job still holds its key, so an add meanwhile is its duplicate.
    const again = await tm.addJob({ queue: 'q', unique: 'k' });
    assert.deepEqual(again, { id: holder.id, deduplicated: true });
    assert.equal((await tm.resumeJob(holder.id)).status, 'pending');
    assert.equal(await countRows(tm, 'jobs', `unique_key = 'key:k' and ${IN_FLIGHT}`), 1);
  });
});
