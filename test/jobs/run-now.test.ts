import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidJobStateError, InvalidOptionError, JobNotFoundError, silentLogger } from '../../src/index.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeEachDriver } from '../support/each-driver.js';

const HOUR = 3_600;

describeEachDriver('run now', ({ openOnClock }) => {
  test('a scheduled job and a retry-waiting one run at once, keeping their attempts', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    const runs: string[] = [];
    tm.createQueue({
      name: 'q',
      maxAttempts: 3,
      backoff: { delaySeconds: HOUR, jitter: false },
      handler: (job) => {
        runs.push(`${(job.data as { name: string }).name}#${job.attempts}`);
        if ((job.data as { name: string }).name === 'flaky' && job.attempts === 1)
          throw new Error('first try');
      },
    });
    const later = await tm.addJob({ queue: 'q', data: { name: 'later' }, delaySeconds: HOUR });
    const flaky = await tm.addJob({ queue: 'q', data: { name: 'flaky' } });
    await tm.runUntilIdle();
    assert.deepEqual(runs, ['flaky#1']);
    assert.equal((await tm.getJob(flaky.id))?.status, 'retry');

    const promoted = await tm.runNow(later.id);
    assert.equal(promoted.status, 'pending');
    assert.equal(promoted.runAt.getTime(), tm.clock.now().getTime());
    assert.equal((await tm.runNow(flaky.id)).status, 'retry', 'a retry keeps its status and attempts');
    await tm.runUntilIdle();
    assert.deepEqual(runs.sort(), ['flaky#1', 'flaky#2', 'later#1']);
    assert.equal((await tm.getJob(flaky.id))?.attempts, 2);
  });

  test('a job that is not waiting for its time is refused by its state, and nothing is written', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => 'done' });
    const done = await tm.addJob({ queue: 'q', data: {} });
    await tm.runUntilIdle();
    const before = await tm.getJob(done.id);
    await assert.rejects(
      tm.runNow(done.id),
      (error: unknown) =>
        error instanceof InvalidJobStateError &&
        error.status === 'completed' &&
        /only pending or retry-waiting jobs can be run now/.test(error.message),
    );
    assert.deepEqual(await tm.getJob(done.id), before);
    const held = await tm.addJob({ queue: 'q', data: {}, delaySeconds: HOUR });
    await tm.pauseJob(held.id);
    await assert.rejects(tm.runNow(held.id), InvalidJobStateError);
    assert.ok(((await tm.getJob(held.id))?.runAt.getTime() ?? 0) > tm.clock.now().getTime(), 'its time kept');
    await assert.rejects(tm.runNow('987654321'), JobNotFoundError);
    await assert.rejects(
      tm.runNow('x'),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'id',
    );
  });

  test('runJobsNow counts first on a dry run, then makes every matching job due, one queue only', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    const ran: string[] = [];
    for (const name of ['a', 'b']) tm.createQueue({ name, handler: (job) => void ran.push(job.queue) });
    await tm.addJobs(Array.from({ length: 5 }, () => ({ queue: 'a', data: {}, delaySeconds: HOUR })));
    await tm.addJobs(Array.from({ length: 2 }, () => ({ queue: 'b', data: {}, delaySeconds: HOUR })));
    const dry = await tm.runJobsNow({ queue: 'a', status: 'pending' }, { dryRun: true });
    assert.deepEqual([dry.action, dry.matched, dry.done], ['run-now', 5, 0]);
    await tm.runUntilIdle();
    assert.deepEqual(ran, [], 'a dry run changes nothing');
    const outcome = await tm.runJobsNow({ queue: 'a', status: 'pending' });
    assert.deepEqual([outcome.matched, outcome.done, outcome.refused], [5, 5, {}]);
    await tm.runUntilIdle();
    assert.deepEqual(ran, ['a', 'a', 'a', 'a', 'a']);
    await assert.rejects(
      tm.runJobsNow({ queue: 'a', status: 'completed' }),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'filter.status',
    );
  });

  test('the dashboard offers Run now on a scheduled job, and the job list runs the matching jobs now', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {}, delaySeconds: HOUR });
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs/${id}`)).body;
    assert.match(page, new RegExp(`action="/jobs/${id}/run-now"`));
    const res = await post(`${url}jobs/${id}/run-now`, { csrf: csrfIn(page) });
    assert.equal(res.status, 303, res.body);
    assert.equal(res.res.headers.get('location'), `/jobs/${id}?done=run-now`);
    assert.equal((await tm.getJob(id))?.runAt.getTime(), tm.clock.now().getTime());
    assert.doesNotMatch((await get(`${url}jobs/${id}`)).body, /\/run-now"/, 'due now: nothing to offer');
    const list = (await get(`${url}jobs?queue=q&status=pending`)).body;
    assert.match(list, /value="run-now-matching"/);
  });
});
