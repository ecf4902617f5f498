import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

const BACKLOG = 100_000;

describeEachDriver('flow control: no head-of-line blocking', ({ kind, open }) => {
  test(`a key at its limit with ${BACKLOG.toLocaleString('en')} pending jobs delays no other key by a claim round`, async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', keys: { concurrency: 1 } });
    await tm.listQueues();
    // The backlog in one statement: what matters is its size, not how it was added.
    await rawQuery(
      tm,
      `insert into "${tm.schema}".jobs (queue, key, data, priority, run_at)
       select 'q', 'busy', 'null', 0, now() - interval '1 hour' from generate_series(1, ${BACKLOG})`,
    );
    await rawQuery(tm, `analyze "${tm.schema}".jobs`);
    const { storage } = engineOf(tm);
    const first = await storage.attempts.claimJobs(['q'], 10, 'w1', 30);
    assert.deepEqual(
      first.map((c) => c.job.key),
      ['busy'],
      'the busy key starts one job: its limit',
    );
    // Added after a backlog older than itself, with a lower priority than nothing: each is
    // still claimed by the next claim.
    const other = await tm.addJob({ queue: 'q', key: 'other', priority: -5 });
    const plain = await tm.addJob({ queue: 'q', priority: -5 });
    const started = performance.now();
    const next = await storage.attempts.claimJobs(['q'], 10, 'w1', 30);
    const ms = performance.now() - started;
    assert.deepEqual(next.map((c) => c.job.id).sort(), [other.id, plain.id].sort());
    console.log(
      `head of line [${kind}]: the next claim took ${ms.toFixed(1)} ms behind ${BACKLOG} pending jobs of a full key`,
    );
  });
});
