import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BulkSetGrewError, InvalidOptionError, QueueNotFoundError } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { finishedJobs, statusesOf, updateJob } from '../support/jobs.js';

describeEachDriver('bulk retry and cancel by filter', ({ open }) => {
  test('retry counts with a dry run, then retries every match in bounded batches', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    tm.createQueue({ name: 'other' });
    const failed = await finishedJobs(tm, 'q', 7);
    const elsewhere = await finishedJobs(tm, 'other', 2);
    const completed = await finishedJobs(tm, 'q', 1, 'completed');
    const pending = (await tm.addJob({ queue: 'q', data: {} })).id;

    const dry = await tm.retryJobs({ queue: 'q', status: 'failed' }, { dryRun: true, batchSize: 3 });
    assert.equal(dry.matched, 7);
    assert.equal(dry.done, 0);
    assert.deepEqual(await statusesOf(tm, failed), Array(7).fill('failed'), 'a dry run changes nothing');

    const outcome = await tm.retryJobs({ queue: 'q', status: 'failed' }, { batchSize: 3 });
    assert.deepEqual(
      { matched: outcome.matched, done: outcome.done, refused: outcome.refused, batches: outcome.batches },
      { matched: 7, done: 7, refused: {}, batches: 3 },
    );
    assert.deepEqual(await statusesOf(tm, failed), Array(7).fill('pending'));
    assert.deepEqual(await statusesOf(tm, elsewhere), ['failed', 'failed'], 'another queue is left alone');
    assert.deepEqual(await statusesOf(tm, [...completed, pending]), ['completed', 'pending']);
  });

  test('a unique-key conflict or a job in the wrong state is reported, and the rest go on', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const conflicted = (await tm.addJob({ queue: 'q', data: {}, unique: 'k' })).id;
    await tm.cancelJob(conflicted);
    const holder = (await tm.addJob({ queue: 'q', data: {}, unique: 'k' })).id;
    const others = await finishedJobs(tm, 'q', 2, 'cancelled');
    const outcome = await tm.retryJobs({ queue: 'q', status: 'cancelled' }, { batchSize: 2 });
    assert.equal(outcome.matched, 3);
    assert.equal(outcome.done, 2);
    assert.deepEqual(outcome.refused, { 'unique-key-conflict': 1 });
    assert.equal(outcome.refusals[0].id, conflicted);
    assert.match(outcome.refusals[0].message, new RegExp(`held by job ${holder}|${holder}`));
    assert.deepEqual(await statusesOf(tm, [conflicted, holder, ...others]), [
      'cancelled',
      'pending',
      'pending',
      'pending',
    ]);

    const byIds = await tm.retryJobs({ ids: [holder, others[0]] });
    assert.deepEqual(
      { done: byIds.done, refused: byIds.refused },
      { done: 0, refused: { 'not-retryable': 2 } },
    );
    const cancel = await tm.cancelJobs({ ids: [holder, conflicted] });
    assert.deepEqual(
      { done: cancel.done, refused: cancel.refused },
      { done: 1, refused: { 'not-in-flight': 1 } },
    );
    assert.equal((await tm.getJob(holder))?.status, 'cancelled');
  });

  test("a parent's action covers its children chosen in the same batch: they count as done", async () => {
    const tm = await open();
    tm.createQueue({ name: 'wf' });
    const [parent, child] = await finishedJobs(tm, 'wf', 2);
    await updateJob(tm, child, `parent_id = ${parent}, root_id = ${parent}`);
    const retried = await tm.retryJobs({ queue: 'wf', status: 'failed' });
    assert.deepEqual({ done: retried.done, refused: retried.refused }, { done: 2, refused: {} });
    const cancelled = await tm.cancelJobs({ queue: 'wf', status: 'pending' });
    assert.deepEqual({ done: cancelled.done, refused: cancelled.refused }, { done: 2, refused: {} });
    assert.deepEqual(await statusesOf(tm, [parent, child]), ['cancelled', 'cancelled']);
  });

  test('filters by creation time and by text in the data', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [old, recent] = await finishedJobs(tm, 'q', 2);
    await updateJob(tm, old, `created_at = now() - interval '2 days', data = '{"invoice": "A-1"}'`);
    await updateJob(tm, recent, `data = '{"invoice": "B-2"}'`);
    const count = async (filter: object) =>
      (await tm.retryJobs({ status: 'failed', ...filter }, { dryRun: true })).matched;
    assert.equal(await count({ since: 3600 }), 1);
    assert.equal(await count({ to: new Date(Date.now() - 86_400_000) }), 1);
    assert.equal(await count({ from: new Date(Date.now() - 3 * 86_400_000).toISOString() }), 2);
    assert.equal(await count({ q: 'a-1' }), 1);
    assert.equal(await count({ q: '%' }), 0, 'LIKE wildcards are matched literally');
  });

  test('given the count confirmed, an action is refused whole when more match, and acts on no job above throughId', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const counted = await finishedJobs(tm, 'q', 2);
    const pending = (await tm.addJob({ queue: 'q', data: {} })).id;
    const dry = await tm.retryJobs({ queue: 'q', status: 'failed' }, { dryRun: true });
    assert.deepEqual({ matched: dry.matched, throughId: dry.throughId }, { matched: 2, throughId: pending });
    await updateJob(tm, pending, `status = 'failed', attempts = 1, finished_at = now()`);
    const [later] = await finishedJobs(tm, 'q', 1);
    const confirmed = { maxMatched: dry.matched, throughId: dry.throughId };
    await assert.rejects(
      tm.retryJobs({ queue: 'q', status: 'failed' }, confirmed),
      (error: unknown) =>
        error instanceof BulkSetGrewError && error.matched === 3 && error.code === 'BULK_SET_GREW',
    );
    assert.deepEqual(
      await statusesOf(tm, [...counted, pending, later]),
      Array(4).fill('failed'),
      'nothing changed',
    );
    const done = await tm.retryJobs({ queue: 'q', status: 'failed' }, { ...confirmed, maxMatched: 3 });
    assert.deepEqual({ matched: done.matched, done: done.done }, { matched: 3, done: 3 });
    assert.equal((await tm.getJob(later))?.status, 'failed', 'a job above throughId is not touched');
  });

  test('the text filter matches the data and the error message and name, as the job list does', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [inData, inMessage, inName, neither] = await finishedJobs(tm, 'q', 4);
    await updateJob(tm, inData, `data = '{"note": "Needle"}'`);
    await updateJob(tm, inMessage, `error = '{"name": "Error", "message": "a needle"}'`);
    await updateJob(tm, inName, `error = '{"name": "NeedleError", "message": "x"}'`);
    await updateJob(tm, neither, `error = '{"name": "Error", "message": "hay"}'`);
    const outcome = await tm.retryJobs({ queue: 'q', status: 'failed', q: 'needle' });
    assert.equal(outcome.done, 3);
    assert.deepEqual(await statusesOf(tm, [inData, inMessage, inName, neither]), [
      'pending',
      'pending',
      'pending',
      'failed',
    ]);
  });

  test('a bad filter is refused naming the field, before anything changes', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [id] = await finishedJobs(tm, 'q', 1);
    const field = (name: string) => (error: unknown) =>
      error instanceof InvalidOptionError && error.field === name;
    await assert.rejects(tm.retryJobs({ queue: 'q' }), field('filter.status'));
    await assert.rejects(tm.retryJobs({ status: 'pending' }), field('filter.status'));
    await assert.rejects(tm.cancelJobs({ status: 'failed' }), field('filter.status'));
    await assert.rejects(tm.retryJobs({ ids: ['x'] }), field('filter.ids[0]'));
    await assert.rejects(tm.retryJobs({ ids: [] }), field('filter.ids'));
    await assert.rejects(
      tm.retryJobs({ status: 'failed', since: 60, from: new Date() }),
      field('filter.since'),
    );
    await assert.rejects(tm.retryJobs({ status: 'failed', from: 'soon' }), field('filter.from'));
    await assert.rejects(tm.retryJobs({ status: 'failed', nope: 1 } as never), field('filter.nope'));
    await assert.rejects(tm.retryJobs({ status: 'failed' }, { batchSize: 0 }), field('options.batchSize'));
    await assert.rejects(tm.retryJobs({ status: 'failed' }, { maxMatched: -1 }), field('options.maxMatched'));
    await assert.rejects(
      tm.retryJobs({ status: 'failed' }, { throughId: 'top' }),
      field('options.throughId'),
    );
    await assert.rejects(
      tm.retryJobs({ status: 'failed', queue: 'missing' }),
      (error: unknown) => error instanceof QueueNotFoundError,
    );
    assert.equal((await tm.getJob(id))?.status, 'failed');
  });
});
