import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  HoldNotFoundError,
  InvalidOptionError,
  JobHeldError,
  JobNotFoundError,
  QueueNotFoundError,
  silentLogger,
} from '../../src/index.js';
import { controlState } from '../support/control-state.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob, insertTree, jobExists } from '../support/factory.js';

const DUE = { status: 'completed' as const, purgeAfter: -60, finishedAt: -120 };

describeEachDriver('retention holds', ({ open }) => {
  test('a held job and its whole tree survive the sweep and removeJobs until the hold is released', async () => {
    const tm = await open({ logger: silentLogger });
    const [root, child, grandchild] = await insertTree(tm, DUE, [DUE, { ...DUE, parent: 1 }]);
    const free = await insertJob(tm, DUE);
    const { holdId, jobs } = await tm.holdJobs({ ids: [child], reason: 'audit 2026-11' });
    assert.equal(typeof holdId, 'string');
    assert.equal(jobs, 1);

    const swept = await tm.sweep();
    assert.equal(swept.jobs, 1, 'only the job outside the held tree');
    assert.equal(await tm.removeJobs(), 0);
    assert.deepEqual((await existingJobs(tm)).sort(), [root, child, grandchild].sort());
    assert.equal(await jobExists(tm, free), false);

    const holds = await tm.listHolds();
    assert.equal(holds.length, 1);
    assert.deepEqual(
      { id: holds[0].id, reason: holds[0].reason, queue: holds[0].queue, jobs: holds[0].jobs },
      { id: holdId, reason: 'audit 2026-11', queue: null, jobs: 1 },
    );
    assert.ok(holds[0].createdAt instanceof Date);
    const detail = await tm.getJobDetail(grandchild);
    assert.deepEqual(
      detail?.holds.map((h) => h.id),
      [holdId],
      'the job page sees the hold on its tree',
    );
    assert.equal((await tm.retentionStatus()).holds, 1);

    await tm.releaseHold(holdId);
    assert.deepEqual(await tm.listHolds(), []);
    assert.equal((await tm.sweep()).jobs, 3);
    assert.deepEqual(await existingJobs(tm), []);
  });

  test('deleteJob and deleteWorkflowSubtree refuse a held tree with JobHeldError naming the hold', async () => {
    const tm = await open({ logger: silentLogger });
    const [root, child] = await insertTree(tm, DUE, [DUE]);
    const single = await insertJob(tm, DUE);
    const { holdId } = await tm.holdJobs({ ids: [single, root], reason: 'legal hold' });
    const attempts = [
      () => tm.deleteJob(single),
      () => tm.deleteJob(child),
      () => tm.deleteWorkflowSubtree(root),
    ];
    for (const attempt of attempts) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof JobHeldError);
        assert.equal(error.code, 'JOB_HELD');
        assert.equal(error.holdId, holdId);
        assert.match(error.message, /legal hold/);
        assert.match(error.message, new RegExp(`releaseHold\\('${holdId}'\\)`));
        return true;
      });
    }
    assert.equal((await existingJobs(tm)).length, 3);
    await tm.releaseHold(holdId);
    await tm.deleteJob(single);
    assert.equal(await tm.deleteWorkflowSubtree(root), 2);
  });

  test('a queue hold keeps every job of the queue, present and added later, and trees with a member in it', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'audit', retention: { completed: 1 } });
    tm.createQueue({ name: 'other', retention: { completed: 1 } });
    const before = await insertJob(tm, { ...DUE, queue: 'audit' });
    const [top] = await insertTree(tm, { ...DUE, queue: 'other' }, [{ ...DUE, queue: 'audit' }]);
    const unrelated = await insertJob(tm, { ...DUE, queue: 'other' });
    const { holdId, jobs } = await tm.holdJobs({ queue: 'audit', reason: 'incident' });
    assert.equal(jobs, 2, 'the queue holds two jobs now');
    const later = await insertJob(tm, { ...DUE, queue: 'audit' });
    assert.equal((await tm.sweep()).jobs, 1);
    assert.equal(await jobExists(tm, unrelated), false);
    for (const id of [before, top, later]) assert.equal(await jobExists(tm, id), true, `job ${id} was kept`);
    assert.equal(await tm.removeJobs({ queue: 'other' }), 0, 'the tree with an audit member stays');
    await assert.rejects(tm.deleteWorkflowSubtree(top), JobHeldError);
    assert.equal((await tm.listHolds())[0].jobs, 3);
    await tm.releaseHold(holdId);
    assert.equal((await tm.sweep()).jobs, 3 + 1);
  });

  test('consumed signals of a held job stay past their window', async () => {
    const tm = await open({ logger: silentLogger });
    const id = await insertJob(tm, { status: 'waiting', signals: [{ consumedAt: -120, purgeAfter: -60 }] });
    const { holdId } = await tm.holdJobs({ ids: [id], reason: 'keep the conversation' });
    assert.equal((await tm.sweep()).signals, 0);
    await tm.releaseHold(holdId);
    assert.equal((await tm.sweep()).signals, 1);
  });

  test('bad input is refused with a typed error and nothing is written', async () => {
    const tm = await open({ logger: silentLogger });
    const id = await insertJob(tm, DUE);
    const cases: [unknown, (error: unknown) => boolean][] = [
      [{ reason: 'no target' }, (e) => e instanceof InvalidOptionError && e.field === 'ids'],
      [{ ids: [], reason: 'x' }, (e) => e instanceof InvalidOptionError && e.field === 'ids'],
      [{ ids: ['abc'], reason: 'x' }, (e) => e instanceof InvalidOptionError && e.field === 'ids[0]'],
      [{ ids: [id] }, (e) => e instanceof InvalidOptionError && e.field === 'reason'],
      [{ ids: [id], reason: '' }, (e) => e instanceof InvalidOptionError && e.field === 'reason'],
      [{ ids: [id], reason: 'x', why: 1 }, (e) => e instanceof InvalidOptionError && e.field === 'why'],
      [{ ids: [id, '999999'], reason: 'x' }, (e) => e instanceof JobNotFoundError && e.jobId === '999999'],
      [{ queue: 'nope', reason: 'x' }, (e) => e instanceof QueueNotFoundError],
    ];
    for (const [options, check] of cases) {
      await assert.rejects(tm.holdJobs(options as never), check, JSON.stringify(options));
    }
    const [rows] = await rawQuery<{ holds: number; links: number }>(
      tm,
      `select (select count(*) from "${tm.schema}".retention_holds)::int as holds,
              (select count(*) from "${tm.schema}".retention_hold_jobs)::int as links`,
    );
    assert.deepEqual(rows, { holds: 0, links: 0 });
    await assert.rejects(tm.releaseHold('12345'), HoldNotFoundError);
    await assert.rejects(tm.releaseHold('x' as never), InvalidOptionError);
  });

  test('a hold refused for an id that names no job writes nothing, not even the gate version', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const id = await insertJob(tm, { ...DUE, queue: 'q' });
    await tm.holdJobs({ queue: 'q', reason: 'first' });
    const before = await controlState(tm);
    for (const options of [
      { ids: [id, '999999'], reason: 'x' },
      { ids: ['999999', id], queue: 'q', reason: 'x' },
    ]) {
      await assert.rejects(tm.holdJobs(options), JobNotFoundError, JSON.stringify(options));
      assert.deepEqual(await controlState(tm), before, JSON.stringify(options));
    }
  });
});
