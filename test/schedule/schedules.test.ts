import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import {
  InvalidOptionError,
  QueueNotFoundError,
  ScheduleNotFoundError,
  silentLogger,
  type Tidemark,
} from '../../src/index.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

const EVERY_SECOND = '*/1 * * * * *';

function t(tm: Tidemark, name: string): string {
  return `"${tm.schema}".${name}`;
}

async function fires(tm: Tidemark) {
  return rawQuery<{ schedule_name: string; fire_at: Date; job_id: string }>(
    tm,
    `select schedule_name, fire_at, job_id::text as job_id from ${t(tm, 'schedule_fires')} order by fire_at`,
  );
}

async function jobCount(tm: Tidemark): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from ${t(tm, 'jobs')}`);
  return row.n;
}

/** Pretend the schedule last fired `seconds` ago (as after downtime). */
async function lastFiredAgo(tm: Tidemark, name: string, seconds: number): Promise<void> {
  await rawQuery(
    tm,
    `update ${t(tm, 'schedules')} set last_fire_at = now() - $2 * interval '1 second' where name = $1`,
    [name, seconds],
  );
}

describeEachDriver('schedules', ({ open }) => {
  test('a due fire enqueues one job that its fire row references, deleted with the job', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'reports' });
    await tm.schedule({ name: 'nightly', cron: EVERY_SECOND, queue: 'reports', data: { kind: 'sales' } });
    const [listed] = await tm.listSchedules();
    assert.deepEqual(
      { ...listed, nextFireAt: undefined },
      {
        name: 'nightly',
        cron: EVERY_SECOND,
        timezone: 'UTC',
        queue: 'reports',
        data: { kind: 'sales' },
        lastFireAt: null,
        nextFireAt: undefined,
        paused: false,
        jobOptions: {},
        key: null,
        tier: null,
        tags: [],
      },
    );
    const untilNext = (listed.nextFireAt?.getTime() ?? 0) - Date.now();
    assert.ok(
      untilNext > -1_000 && untilNext <= 1_000,
      `every second: the next fire within one (${untilNext} ms)`,
    );
    await waitFor('a fire', async () => (await tickOnce(tickInputs(engineOf(tm)))).scheduled > 0);
    const [fire] = await fires(tm);
    assert.equal(fire.schedule_name, 'nightly');
    assert.equal(fire.fire_at.getMilliseconds(), 0, 'fires at whole cron slots');
    const job = await tm.getJob(fire.job_id);
    assert.equal(job?.queue, 'reports');
    assert.deepEqual(job?.data, { kind: 'sales' });
    assert.equal(job?.status, 'pending');
    await tm.cancelJob(fire.job_id);
    await tm.deleteJob(fire.job_id);
    assert.equal((await fires(tm)).length, 0, 'the fire row went with its job');
  });

  test('unschedule stops the fires and refuses an unknown name', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await tm.schedule({ name: 's', cron: EVERY_SECOND, queue: 'q' });
    await tm.unschedule('s');
    await lastFiredAgo(tm, 's', 60);
    assert.equal((await tickOnce(tickInputs(engineOf(tm)))).scheduled, 0);
    assert.equal(await jobCount(tm), 0);
    await assert.rejects(tm.unschedule('s'), ScheduleNotFoundError);
  });

  test('an invalid cron, timezone or queue is refused and nothing is written', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const field = (name: string) => (error: unknown) =>
      error instanceof InvalidOptionError && error.field === name;
    await assert.rejects(tm.schedule({ name: 's', cron: 'every tuesday', queue: 'q' }), field('cron'));
    await assert.rejects(tm.schedule({ name: 's', cron: '61 * * * *', queue: 'q' }), field('cron'));
    await assert.rejects(
      tm.schedule({ name: 's', cron: '0 * * * *', queue: 'q', timezone: 'Mars/Olympus_Mons' }),
      field('timezone'),
    );
    await assert.rejects(
      tm.schedule({ name: 's', cron: '0 * * * *', queue: 'nope' }),
      (error: unknown) => error instanceof QueueNotFoundError && error.queue === 'nope',
    );
    const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from ${t(tm, 'schedules')}`);
    assert.equal(row.n, 0);
  });

  test('a schedule keeps its time zone', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await tm.schedule({ name: 'paris', cron: '0 9 * * 1-5', queue: 'q', timezone: 'Europe/Paris' });
    assert.equal((await tm.listSchedules())[0].timezone, 'Europe/Paris');
  });

  test('after downtime only the latest missed fire runs, not one per missed slot', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await tm.schedule({ name: 'often', cron: EVERY_SECOND, queue: 'q' });
    await tm.schedule({ name: 'minutely', cron: '0 * * * * *', queue: 'q' });
    await lastFiredAgo(tm, 'often', 3600);
    await lastFiredAgo(tm, 'minutely', 3600);
    const { scheduled } = await tickOnce(tickInputs(engineOf(tm)));
    assert.equal(scheduled, 2);
    const rows = await fires(tm);
    const [now] = await rawQuery<{ now: Date }>(tm, 'select now() as now');
    const minute = rows.find((r) => r.schedule_name === 'minutely');
    assert.ok(minute);
    assert.equal(minute.fire_at.getUTCSeconds(), 0);
    assert.ok(
      now.now.getTime() - minute.fire_at.getTime() < 60_000,
      'the latest minute slot, not an old one',
    );
  });

  test('a node with a stale view does not fire a slot older than the last fire', async () => {
    const tm = await open({ logger: silentLogger });
    const queue = tm.createQueue({ name: 'q' });
    await tm.schedule({ name: 's', cron: EVERY_SECOND, queue: 'q' });
    await lastFiredAgo(tm, 's', 10);
    assert.equal((await tickOnce(tickInputs(engineOf(tm)))).scheduled, 1);
    const [latest] = await fires(tm);
    const id = await engineOf(tm).storage.schedules.recordFire(
      's',
      new Date(latest.fire_at.getTime() - 5_000),
      { queue: 'q', dataText: 'null', priority: 0, max_attempts: queue.maxAttempts, retention: {} },
      engineOf(tm).insertDefaults,
    );
    assert.equal(id, null);
    assert.equal(await jobCount(tm), 1);
  });

  test('several nodes ticking at once create exactly one job per fire', async () => {
    const nodes = [await open({ logger: silentLogger })];
    for (let i = 0; i < 2; i++) nodes.push(await open({ logger: silentLogger, schema: nodes[0].schema }));
    for (const node of nodes) node.createQueue({ name: 'q' });
    await nodes[0].schedule({ name: 's', cron: EVERY_SECOND, queue: 'q' });
    await lastFiredAgo(nodes[0], 's', 30);
    let created = 0;
    await waitFor('three fires', async () => {
      const results = await Promise.all(nodes.map((node) => tickOnce(tickInputs(engineOf(node)))));
      created += results.reduce((sum, r) => sum + r.scheduled, 0);
      return (await fires(nodes[0])).length >= 3;
    });
    const rows = await fires(nodes[0]);
    assert.equal(await jobCount(nodes[0]), rows.length);
    assert.equal(created, rows.length);
    assert.equal(new Set(rows.map((r) => r.job_id)).size, rows.length);
    assert.equal(new Set(rows.map((r) => r.fire_at.getTime())).size, rows.length);
  });
});
