import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, type Tidemark } from '../../src/index.js';
import type { TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

interface Stored {
  id: string;
  status: string;
  data: unknown;
  /** Seconds from the test clock's now to the run time. */
  due_in: number;
}

/** Every job of the queue, oldest first. */
async function jobsOf(tm: TestTidemark | Tidemark, queue: string): Promise<Stored[]> {
  return rawQuery<Stored>(
    tm,
    `select id::text as id, status, data,
            round(extract(epoch from run_at - "${tm.schema}".tidemark_test_now())::numeric, 3)::float8 as due_in
       from "${tm.schema}".jobs where queue = $1 order by jobs.id`,
    [queue],
  );
}

describeEachDriver('debounce and throttle', ({ openOnClock }) => {
  test('a trailing debounce keeps one pending job per key with the last data, run after the last add', async () => {
    const tm = await openOnClock();
    const ran: unknown[] = [];
    tm.createQueue({ name: 'sync', handler: (job) => void ran.push(job.data) });
    const debounce = { key: 'account:1', seconds: 10 };
    const first = await tm.addJob({ queue: 'sync', data: { v: 1 }, debounce });
    assert.deepEqual(first, { id: first.id, deduplicated: false, debounced: false });
    await tm.clock.advance(4);
    const second = await tm.addJob({ queue: 'sync', data: { v: 2 }, debounce });
    assert.deepEqual(second, { id: first.id, deduplicated: true, debounced: true });
    const other = await tm.addJob({
      queue: 'sync',
      data: { v: 'other' },
      debounce: { ...debounce, key: 'b' },
    });
    assert.notEqual(other.id, first.id, 'another key has its own job');
    await tm.clock.advance(4);
    await tm.addJob({ queue: 'sync', data: { v: 3 }, debounce });
    const [job] = await jobsOf(tm, 'sync');
    assert.deepEqual(job, { id: first.id, status: 'pending', data: { v: 3 }, due_in: 10 });
    await tm.clock.advance(9.9);
    await tm.runUntilIdle();
    assert.deepEqual(ran, [{ v: 'other' }], 'not before the window after the last add has passed');
    await tm.clock.advance(0.1);
    await tm.runUntilIdle();
    assert.deepEqual(ran, [{ v: 'other' }, { v: 3 }], 'one run per key, with the last data');
    const after = await tm.addJob({ queue: 'sync', data: { v: 4 }, debounce });
    assert.equal(
      after.debounced,
      false,
      'a finished job takes no more adds: the next add makes the next job',
    );
    assert.notEqual(after.id, first.id);
  });

  test('maxWaitSeconds bounds a trailing debounce from its first add', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'sync' });
    const debounce = { key: 'k', seconds: 5, maxWaitSeconds: 12 };
    await tm.addJob({ queue: 'sync', data: 1, debounce });
    for (let i = 0; i < 2; i++) {
      await tm.clock.advance(4);
      await tm.addJob({ queue: 'sync', data: 2 + i, debounce });
    }
    // 8 s after the first add: 5 s after this add would be 13 s after the first.
    const [job] = await jobsOf(tm, 'sync');
    assert.equal(job.due_in, 4, 'due 12 s after the first add, not 5 s after the last');
    await tm.clock.advance(4);
    await tm.addJob({ queue: 'sync', data: 9, debounce });
    const [late] = await jobsOf(tm, 'sync');
    assert.deepEqual([late.due_in, late.data], [0, 9], 'past the bound, an add takes its data and runs now');
  });

  test('an add while the job runs makes the next pending job and leaves the started one as it was', async () => {
    const tm = await openOnClock();
    const seen: unknown[] = [];
    const debounce = { key: 'k', seconds: 3 };
    tm.createQueue({
      name: 'sync',
      handler: async (job) => {
        seen.push(job.data);
        if (job.data === 'first') {
          const next = await tm.addJob({ queue: 'sync', data: 'during', debounce });
          seen.push(next.debounced);
        }
      },
    });
    await tm.addJob({ queue: 'sync', data: 'first', debounce });
    await tm.clock.advance(3);
    await tm.runUntilIdle();
    const jobs = await jobsOf(tm, 'sync');
    assert.deepEqual(
      jobs.map((j) => [j.status, j.data]),
      [
        ['completed', 'first'],
        ['pending', 'during'],
      ],
    );
    assert.deepEqual(seen, ['first', false]);
  });

  test('a leading debounce runs the first add now and folds the adds within its window into it', async () => {
    const tm = await openOnClock();
    const ran: unknown[] = [];
    tm.createQueue({ name: 'hook', handler: (job) => void ran.push(job.data) });
    const debounce = { key: 'repo:7', seconds: 30, mode: 'leading' as const };
    const first = await tm.addJob({ queue: 'hook', data: 'a', debounce });
    await tm.runUntilIdle();
    assert.deepEqual(ran, ['a'], 'the first add runs at once');
    await tm.clock.advance(29);
    const folded = await tm.addJob({ queue: 'hook', data: 'b', debounce });
    assert.deepEqual(folded, { id: first.id, deduplicated: true, debounced: true }, 'folded, though it ran');
    await tm.clock.advance(1);
    const next = await tm.addJob({ queue: 'hook', data: 'c', debounce });
    assert.equal(next.debounced, false, 'past the window the next add runs');
    await tm.runUntilIdle();
    assert.deepEqual(ran, ['a', 'c']);
  });

  test('a throttle starts one job per period per key and folds the adds between into the next', async () => {
    const tm = await openOnClock();
    const starts: [unknown, number][] = [];
    const t0 = tm.clock.now().getTime();
    tm.createQueue({
      name: 'report',
      handler: (job) => void starts.push([job.data, (tm.clock.now().getTime() - t0) / 1000]),
    });
    const throttle = { key: 'team:1', seconds: 60 };
    const first = await tm.addJob({ queue: 'report', data: 1, throttle });
    assert.deepEqual(first, { id: first.id, deduplicated: false, throttled: false });
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    await tm.clock.advance(10);
    const second = await tm.addJob({ queue: 'report', data: 2, throttle });
    assert.equal(second.throttled, false, 'the first has started: this add is the next slot');
    const third = await tm.addJob({ queue: 'report', data: 3, throttle });
    assert.deepEqual(third, { id: second.id, deduplicated: true, throttled: true });
    const waiting = (await jobsOf(tm, 'report'))[1];
    assert.equal(waiting.due_in, 50, 'due a period after the first start (at 5 s), not after its add');
    await tm.clock.advance(49.9);
    await tm.runUntilIdle();
    await tm.clock.advance(0.1);
    await tm.runUntilIdle();
    assert.deepEqual(starts, [
      [1, 5],
      [2, 65],
    ]);
  });

  test('a job given back unstarted still takes adds; a refold keeps its expiry as far from its run time', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'sync' });
    const debounce = { key: 'k', seconds: 60 };
    const first = await tm.addJob({ queue: 'sync', data: 1, debounce, expireInSeconds: 30 });
    // As a stopping worker or a limiter leaves a claimed job it never started.
    await rawQuery(tm, `update "${tm.schema}".jobs set started_at = "${tm.schema}".tidemark_test_now()`);
    await tm.clock.advance(50);
    const again = await tm.addJob({ queue: 'sync', data: 2, debounce });
    assert.deepEqual([again.id, again.debounced], [first.id, true]);
    const [row] = await rawQuery<{ due_in: number; expires_after: number }>(
      tm,
      `select extract(epoch from run_at - "${tm.schema}".tidemark_test_now())::float8 as due_in,
              extract(epoch from expire_at - run_at)::float8 as expires_after
         from "${tm.schema}".jobs`,
    );
    assert.deepEqual(
      row,
      { due_in: 60, expires_after: 30 },
      'moved with the run time, not left to expire it',
    );
  });

  test('a throttle counts from the last start even when the newest job never ran', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'report', handler: () => {} });
    const throttle = { key: 'k', seconds: 60 };
    await tm.addJob({ queue: 'report', data: 1, throttle });
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    const next = await tm.addJob({ queue: 'report', data: 2, throttle });
    await tm.cancelJob(next.id);
    await tm.clock.advance(10);
    await tm.addJob({ queue: 'report', data: 3, throttle });
    const waiting = (await jobsOf(tm, 'report')).find((job) => job.status === 'pending');
    assert.equal(waiting?.due_in, 50, 'due a period after the first job started (at 5 s), not at once');
  });

  test('adds in a caller transaction fold together and vanish with its rollback', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'sync' });
    const debounce = { key: 'k', seconds: 10 };
    await assert.rejects(
      tm.transaction(async (tx) => {
        await tm.addJob({ queue: 'sync', data: 1, debounce }, { tx });
        throw new Error('roll back');
      }),
      /roll back/,
    );
    assert.deepEqual(await jobsOf(tm, 'sync'), [], 'nothing is left of a rolled-back add');
    const ids = await tm.transaction(async (tx) => [
      await tm.addJob({ queue: 'sync', data: 1, debounce }, { tx }),
      await tm.addJob({ queue: 'sync', data: 2, debounce }, { tx }),
    ]);
    assert.equal(ids[1].id, ids[0].id);
    const batch = await tm.addJobs<unknown>([
      { queue: 'sync', data: 3, debounce },
      { queue: 'sync', data: 'plain' },
      { queue: 'sync', data: 4, debounce },
    ]);
    assert.deepEqual(
      batch.map((r) => r.id === ids[0].id),
      [true, false, true],
    );
    assert.deepEqual(
      (await jobsOf(tm, 'sync')).map((j) => j.data),
      [4, 'plain'],
      'one job for the key, with the batch’s last data',
    );
  });

  test('adds of one key racing on the engine’s connections make one job', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'sync' });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        tm.addJob({ queue: 'sync', data: i, debounce: { key: `k${i % 2}`, seconds: 10 } }),
      ),
    );
    assert.equal(results.filter((r) => !r.debounced).length, 2, 'one add per key made its job');
    assert.equal(new Set(results.map((r) => r.id)).size, 2);
    assert.equal((await jobsOf(tm, 'sync')).length, 2);
  });

  test('bad debounce and throttle options are refused by name and write nothing', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'sync' });
    const debounce = { key: 'k', seconds: 10 };
    const cases: [Record<string, unknown>, string][] = [
      [{ debounce, idempotencyKey: { key: 'x', ttlSeconds: 5 } }, 'debounce'],
      [{ debounce, unique: true }, 'debounce'],
      [{ debounce, uniqueFor: 5 }, 'debounce'],
      [{ debounce, delaySeconds: 5 }, 'debounce'],
      [{ throttle: debounce, runAt: new Date() }, 'throttle'],
      [{ debounce, throttle: debounce }, 'debounce'],
      [{ debounce: { key: 'k', seconds: 0 } }, 'debounce.seconds'],
      [{ debounce: { key: '', seconds: 1 } }, 'debounce.key'],
      [{ debounce: { key: 'k', seconds: 1, mode: 'both' } }, 'debounce.mode'],
      [{ debounce: { key: 'k', seconds: 1, mode: 'leading', maxWaitSeconds: 9 } }, 'debounce.maxWaitSeconds'],
      [{ throttle: { key: 'k' } }, 'throttle.seconds'],
    ];
    for (const [options, field] of cases) {
      await assert.rejects(
        tm.addJob({ queue: 'sync', data: 1, ...options }),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        `${JSON.stringify(options)} names ${field}`,
      );
    }
    await assert.rejects(
      tm.addJobs([
        { queue: 'sync', data: 1, debounce },
        { queue: 'sync', debounce: { key: 'k' } as typeof debounce },
      ]),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'jobs[1].debounce.seconds',
    );
    assert.deepEqual(await jobsOf(tm, 'sync'), [], 'no job was written');
  });
});
