import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, ScheduleNotFoundError, silentLogger } from '../../src/index.js';
import type { TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/** A whole hour, so that hourly slots fall where the test says. */
const START = new Date('2026-06-01T10:00:00Z');
const HOURLY = '0 * * * *';

async function jobsOf(tm: TestTidemark, queue: string) {
  return (await tm.listJobs({ queue, order: 'asc' })).jobs;
}

async function fireRows(tm: TestTidemark): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(
    tm,
    `select count(*)::int as n from "${tm.schema}".schedule_fires`,
  );
  return row.n;
}

describeEachDriver('schedule controls and job options', ({ openOnClock }) => {
  test('each fired job gets the options the schedule gives; lastFireAt is null until a fire', async () => {
    const tm = await openOnClock({ now: START, logger: silentLogger });
    tm.createQueue({ name: 'reports' });
    const jobOptions = { priority: 5, maxAttempts: 7, expireInSeconds: 600, retention: { completed: 60 } };
    await tm.schedule({
      name: 'hourly',
      cron: HOURLY,
      queue: 'reports',
      data: {},
      tags: ['report'],
      ...jobOptions,
    });
    const [before] = await tm.listSchedules();
    assert.deepEqual([before.lastFireAt, before.nextFireAt], [null, new Date('2026-06-01T11:00:00Z')]);
    assert.deepEqual(before.jobOptions, jobOptions);
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    const [job] = await jobsOf(tm, 'reports');
    assert.deepEqual(
      [job.priority, job.maxAttempts, job.tags, job.retention],
      [5, 7, ['report'], { completed: 60 }],
    );
    assert.equal((job.expireAt?.getTime() ?? 0) - job.runAt.getTime(), 600_000);
    const [after] = await tm.listSchedules();
    assert.deepEqual(
      [after.lastFireAt, after.nextFireAt],
      [new Date('2026-06-01T11:00:00Z'), new Date('2026-06-01T12:00:00Z')],
    );
  });

  test('a paused schedule fires nothing and resumes without catching up; a trigger fires it once, paused or not', async () => {
    const tm = await openOnClock({ now: START, logger: silentLogger });
    tm.createQueue({ name: 'mail' });
    await tm.schedule({ name: 'digest', cron: HOURLY, queue: 'mail', data: {} });
    await tm.pauseSchedule('digest');
    const [paused] = await tm.listSchedules();
    assert.deepEqual([paused.paused, paused.nextFireAt], [true, null]);
    await tm.clock.advance(2 * 3_600 + 60);
    await tm.runUntilIdle();
    assert.equal((await jobsOf(tm, 'mail')).length, 0, 'nothing fired while paused');

    const triggered = await tm.triggerSchedule('digest');
    assert.ok(triggered, 'a trigger fires a paused schedule');
    assert.equal(await fireRows(tm), 1, 'recorded as a fire');
    assert.deepEqual((await tm.listSchedules())[0].lastFireAt, tm.clock.now());

    await tm.resumeSchedule('digest');
    await tm.runUntilIdle();
    assert.equal((await jobsOf(tm, 'mail')).length, 1, 'the slots missed while paused are not fired');
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    assert.equal((await jobsOf(tm, 'mail')).length, 2, 'the next slot fires');

    // Right after a resume, at the same instant, twice: each trigger is a fire of its own, and
    // the slot due next still fires on its own.
    await tm.pauseSchedule('digest');
    await tm.resumeSchedule('digest');
    assert.ok(await tm.triggerSchedule('digest'));
    assert.ok(await tm.triggerSchedule('digest'));
    assert.equal((await jobsOf(tm, 'mail')).length, 4);
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    assert.equal((await jobsOf(tm, 'mail')).length, 5, 'a trigger does not take the next slot');

    for (const call of [
      () => tm.pauseSchedule('nope'),
      () => tm.resumeSchedule('nope'),
      () => tm.triggerSchedule('nope'),
    ]) {
      await assert.rejects(call(), ScheduleNotFoundError);
    }
  });

  test('unique: a slot waits while the schedule’s job is in flight, then the latest one fires', async () => {
    const tm = await openOnClock({ now: START, logger: silentLogger });
    tm.createQueue({ name: 'sync' });
    await tm.schedule({ name: 'sync', cron: HOURLY, queue: 'sync', data: { all: true }, unique: true });
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    const [first] = await jobsOf(tm, 'sync');
    await tm.clock.advance(3_600);
    await tm.runUntilIdle();
    assert.equal((await jobsOf(tm, 'sync')).length, 1, 'the 12:00 slot waits for the 11:00 job');
    assert.equal(await tm.triggerSchedule('sync'), null, 'a trigger waits too');
    await tm.cancelJob(first.id);
    await tm.runUntilIdle();
    const jobs = await jobsOf(tm, 'sync');
    assert.equal(jobs.length, 2);
    assert.equal(jobs[1].status, 'pending');
    assert.deepEqual((await tm.listSchedules())[0].lastFireAt, new Date('2026-06-01T12:00:00Z'));
  });

  test('an option addJob would refuse is refused by name, and nothing is stored', async () => {
    const tm = await openOnClock({ now: START, logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const refused = async (options: Record<string, unknown>, field: string) =>
      assert.rejects(
        tm.schedule({ name: 's', cron: HOURLY, queue: 'q', ...options }),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        field,
      );
    await refused({ priority: 'high' }, 'priority');
    await refused({ maxAttempts: 0 }, 'maxAttempts');
    await refused({ retention: { completed: -1 } }, 'retention.completed');
    await refused({ idempotencyKey: { key: 'k' } }, 'idempotencyKey');
    assert.deepEqual(await tm.listSchedules(), []);
  });
});
