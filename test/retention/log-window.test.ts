import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

const HOUR = 3_600;

/** Each line's own window in seconds (null: none), oldest line first. */
async function lineWindows(tm: TestTidemark, jobId: string): Promise<(number | null)[]> {
  const rows = await rawQuery<{ window: number | null }>(
    tm,
    `select extract(epoch from purge_after - logged_at)::float8 as window
       from "${tm.schema}".job_logs where job_id = $1::bigint order by id`,
    [jobId],
  );
  return rows.map((r) => r.window);
}

/** A queue whose handler writes `lines` log lines, and one finished job of it. */
async function loggedJob(tm: TestTidemark, queue: string, retention: object, lines = 1): Promise<string> {
  tm.createQueue({
    name: queue,
    retention,
    handler: (_job, ctx) => {
      for (let n = 1; n <= lines; n++) ctx.log.info(`line ${n}`);
    },
  });
  const { id } = await tm.addJob({ queue, data: {} });
  await tm.runUntilIdle();
  assert.equal((await tm.getJob(id))?.status, 'completed');
  return id;
}

describeEachDriver('retention.logsAfterSeconds: log lines on a window of their own', ({ openOnClock }) => {
  test('a line leaves on its own window while its job stays; a job without one keeps its lines', async () => {
    const tm = await openOnClock();
    const short = await loggedJob(tm, 'import', { completed: 10 * HOUR, logsAfterSeconds: HOUR }, 2);
    const plain = await loggedJob(tm, 'plain', { completed: 10 * HOUR });
    assert.deepEqual(await lineWindows(tm, short), [HOUR, HOUR], 'frozen from the job as they were written');
    assert.deepEqual(await lineWindows(tm, plain), [null]);

    await tm.clock.advance(HOUR - 1);
    assert.equal((await tm.sweep({ dryRun: true })).logLines, undefined, 'absent when there are none');
    assert.equal((await tm.sweep()).logLines, undefined);
    await tm.clock.advance(1);
    assert.equal((await tm.sweep({ dryRun: true })).logLines, 2);
    const swept = await tm.sweep();
    assert.deepEqual([swept.jobs, swept.logLines], [0, 2]);
    assert.deepEqual((await tm.getJobLogs(short))?.lines, []);
    assert.equal((await tm.getJob(short))?.status, 'completed', 'the job keeps its own window');
    assert.equal((await tm.getJobLogs(plain))?.lines.length, 1);
    assert.equal((await tm.listSweeps(1))[0]?.logLines, 2, 'the sweep history counts them');

    await tm.clock.advance(9 * HOUR);
    assert.deepEqual([(await tm.sweep()).jobs, await tm.getJobLogs(plain)], [2, null]);
  });

  test('a hold or a pause of retention keeps lines past their window; the next sweep after takes them', async () => {
    const tm = await openOnClock();
    const held = await loggedJob(tm, 'held', { completed: 10 * HOUR, logsAfterSeconds: 60 });
    const other = await loggedJob(tm, 'other', { completed: 10 * HOUR, logsAfterSeconds: 60 });
    const { holdId } = await tm.holdJobs({ ids: [held], reason: 'audit' });
    await tm.pauseRetention({ reason: 'incident' });
    await tm.clock.advance(120);
    const paused = await tm.sweep();
    assert.deepEqual([paused.logLines, paused.paused], [undefined, true]);
    await tm.resumeRetention();
    assert.equal((await tm.sweep()).logLines, 1, 'the line of the job nothing holds');
    assert.deepEqual(await lineWindows(tm, other), []);
    assert.deepEqual(await lineWindows(tm, held), [60]);
    await tm.releaseHold(holdId);
    assert.equal((await tm.sweep()).logLines, 1);
  });

  test('a policy applied to history gives the lines already written their new window, or none', async () => {
    const tm = await openOnClock();
    const id = await loggedJob(tm, 'emails', { completed: 10 * HOUR }, 2);
    assert.deepEqual(await lineWindows(tm, id), [null, null]);
    await tm.applyRetention({ queue: 'emails', policy: { completed: 10 * HOUR, logsAfterSeconds: 600 } });
    assert.deepEqual(await lineWindows(tm, id), [600, 600]);
    await tm.applyRetention({ queue: 'emails', policy: { completed: 10 * HOUR } });
    assert.deepEqual(await lineWindows(tm, id), [null, null], 'a window taken away keeps them with the job');
    await tm.clock.advance(HOUR);
    assert.equal((await tm.sweep()).logLines, undefined);
    await tm.applyRetention({ queue: 'emails', policy: { completed: 10 * HOUR, logsAfterSeconds: 600 } });
    assert.equal((await tm.sweep()).logLines, 2, 'written an hour ago: past the new window at once');
  });
});
