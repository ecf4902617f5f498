import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistoryEvent, RunHistory } from '../../src/index.js';
import type { TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/** The events as `kind` or `kind:what`, for comparing a run's story at a glance. */
function story(events: HistoryEvent[]): string[] {
  return events.map((e) => {
    const what = e.kind === 'run' ? e.detail.outcome : (e.detail.wait ?? e.detail.name ?? e.detail.status);
    return what === undefined ? e.kind : `${e.kind}:${String(what)}`;
  });
}

async function historyOf(tm: TestTidemark, id: string): Promise<RunHistory> {
  const detail = await tm.getJobDetail(id);
  assert.ok(detail, `job ${id} exists`);
  return detail.history;
}

async function historyRows(tm: TestTidemark, id: string): Promise<number> {
  const [row] = await rawQuery<{ n: number }>(
    tm,
    `select count(*)::int as n from "${tm.schema}".run_history where job_id = $1::bigint`,
    [id],
  );
  return row.n;
}

describeEachDriver('run history', ({ openOnClock }) => {
  test("a workflow's whole run is kept: each run, step, sleep, wait, child and signal, never overwritten", async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'child', handler: () => 'child done' });
    tm.createQueue({
      name: 'wf',
      signals: { approval: 1 },
      handler: async (_job, ctx) => {
        await ctx.step('charge', () => 'charged');
        await ctx.sleep('cool-off', 60);
        const approval = await ctx.waitForSignal('approval');
        const child = await ctx.runChild('child', { n: 1 });
        return { approval: approval.payload, child };
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const firstStart = (await tm.getJob(id))?.startedAt;
    assert.ok(firstStart);
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    await tm.clock.advance(5);
    await tm.signal(id, 'approval', { ok: true });
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.ok(done.startedAt && done.startedAt > firstStart, 'the row keeps only the last resume');

    const history = await historyOf(tm, id);
    assert.deepEqual(story(history.events), [
      'run:waiting',
      'step:charge',
      'parked:sleep',
      'run:waiting',
      'woke:sleep',
      'replay',
      'parked:signal',
      'run:waiting',
      'woke:signal',
      'replay',
      'signal',
      'child',
      'parked:child',
      'run:completed',
      'woke:child',
      'replay',
      'child-done:completed',
    ]);
    const runs = history.events.filter((e) => e.kind === 'run');
    assert.ok(runs.every((run) => run.worker !== null && run.endedAt !== null && run.endedAt >= run.at));
    assert.deepEqual(runs[0].at, firstStart, 'the first run keeps its start');
    const signal = history.events.find((e) => e.kind === 'signal');
    assert.deepEqual(signal?.detail.signals, ['approval']);
    const replays = history.events.filter((e) => e.kind === 'replay').map((e) => e.detail.steps);
    assert.deepEqual(replays[0], ['charge']);
    // One attempt, from its first run to its end, with the worker that finished it.
    assert.equal(history.attempts.length, 1);
    const [attempt] = history.attempts;
    assert.deepEqual(
      [attempt.attempt, attempt.outcome, attempt.startedAt, attempt.endedAt],
      [1, 'completed', firstStart, done.finishedAt],
    );
    assert.equal(attempt.worker, runs.at(-1)?.worker);
    assert.equal(history.dropped, 0);
  });

  test('a plain job writes no history rows; its attempts come from its row and attempt log, worker and all', async () => {
    const tm = await openOnClock();
    let calls = 0;
    tm.createQueue({
      name: 'flaky',
      backoff: { delaySeconds: 1, jitter: false },
      handler: () => {
        calls++;
        if (calls === 1) throw new TypeError('first try fails');
        return 'ok';
      },
    });
    const { id } = await tm.addJob({ queue: 'flaky' });
    await tm.runUntilIdle();
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'completed');
    assert.equal(job.lockedBy, null, 'a finished job holds no lock');
    const history = await historyOf(tm, id);
    assert.equal(await historyRows(tm, id), 0);
    assert.deepEqual(history.events, []);
    assert.deepEqual(
      history.attempts.map((a) => [a.attempt, a.outcome, a.error?.name ?? null]),
      [
        [1, 'failed', 'TypeError'],
        [2, 'completed', null],
      ],
    );
    for (const a of history.attempts) {
      assert.ok(a.worker, `attempt ${a.attempt} names its worker`);
      assert.ok(a.startedAt && a.endedAt && a.endedAt >= a.startedAt);
    }
    assert.deepEqual(history.attempts[1].endedAt, job.finishedAt);
  });

  test("a workflow's failed and deferred runs keep their error, and a failing step its own", async () => {
    const tm = await openOnClock();
    let runs = 0;
    tm.createQueue({
      name: 'wf',
      maxAttempts: 2,
      backoff: { delaySeconds: 1, jitter: false },
      handler: async (_job, ctx) => {
        runs++;
        if (runs === 1) throw ctx.retryAfter(5, { reason: 'rate limited' });
        await ctx.step('call', () => {
          if (runs === 2) throw new RangeError('upstream said no');
          return 'fine';
        });
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'completed');
    const history = await historyOf(tm, id);
    // The deferred run made no workflow call: it wrote nothing of its own beyond the attempt log.
    assert.deepEqual(story(history.events), ['run:retry', 'step:call', 'run:completed', 'step:call']);
    assert.deepEqual(history.events[0].detail.error, { name: 'RangeError', message: 'upstream said no' });
    assert.deepEqual(history.events[1].detail.error, { name: 'RangeError', message: 'upstream said no' });
    assert.equal(history.events[3].detail.error, undefined);
    assert.deepEqual(
      history.attempts.map((a) => [a.attempt, a.outcome]),
      [
        [1, 'deferred'],
        [1, 'failed'],
        [2, 'completed'],
      ],
    );
  });

  test('a job keeps at most 1,000 events and counts the rest; its rows leave with it', async () => {
    const tm = await openOnClock();
    tm.createQueue({
      name: 'long',
      retention: { completed: 60 },
      handler: async (_job, ctx) => {
        for (let n = 0; n < 1_004; n++) await ctx.step(`s${n}`, () => n);
        await ctx.sleep('pause', 1);
        await ctx.step('after', () => 'after');
      },
    });
    const { id } = await tm.addJob({ queue: 'long' });
    await tm.runUntilIdle();
    let history = await historyOf(tm, id);
    // The run, then 999 steps; five steps and the park are counted.
    assert.equal(history.events.length, 1_000);
    assert.equal(history.dropped, 6);
    await tm.clock.advance(1);
    await tm.runUntilIdle();
    history = await historyOf(tm, id);
    assert.equal(history.events.length, 1_000);
    // The second run: the run, its wake, its replay, one step.
    assert.equal(history.dropped, 10);
    assert.equal(await historyRows(tm, id), 1_001);
    await tm.clock.advance(60);
    assert.equal((await tm.sweep()).jobs, 1);
    assert.equal(await historyRows(tm, id), 0, 'the history left with its job');
  });
});
