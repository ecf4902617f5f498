import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Handler,
  InvalidJobStateError,
  InvalidOptionError,
  type JobContext,
  JobNotFoundError,
} from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

/** A three-step workflow whose third step throws until `fixed`; counts each step's real runs. */
function pipeline() {
  const ran: Record<string, number> = {};
  const state = { fixed: false };
  const run = (ctx: JobContext, name: string, value: unknown) =>
    ctx.step(name, () => {
      ran[name] = (ran[name] ?? 0) + 1;
      if (name === 'load' && !state.fixed) throw new Error('the loader had a bug');
      return value;
    });
  const handler: Handler = async (job, ctx) => {
    const rows = await run(ctx, 'fetch', [1, 2, 3]);
    const sum = await run(
      ctx,
      'transform',
      (rows as number[]).reduce((a, b) => a + b, 0),
    );
    return run(ctx, 'load', { sum, data: job.data });
  };
  return { ran, state, handler };
}

async function jobCount(tm: { schema: string }, rawTm: Parameters<typeof rawQuery>[0]): Promise<number> {
  const [row] = await rawQuery<{ n: string }>(rawTm, `select count(*) as n from "${tm.schema}".jobs`);
  return Number(row.n);
}

describeEachDriver('tm.forkJob', ({ openOnClock }) => {
  test('a failed workflow forked from its failure keeps the steps it paid for and runs the failing one again', async () => {
    const tm = await openOnClock();
    const { ran, state, handler } = pipeline();
    tm.createQueue({ name: 'etl', maxAttempts: 1, handler });
    const { id } = await tm.addJob({ queue: 'etl', data: 'batch-7' });
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.status, 'failed');

    state.fixed = true;
    const fork = await tm.forkJob(id, { from: { failure: true } });
    assert.notEqual(fork.id, id);
    assert.equal(fork.queue, 'etl');
    assert.equal(fork.status, 'pending');
    assert.equal(fork.data, 'batch-7');
    assert.equal(fork.rootId, null, 'its own tree');
    const copied = (await tm.getJobDetail(fork.id))?.checkpoints.map((c) => [c.seq, c.name]);
    assert.deepEqual(copied, [
      [1, 'fetch'],
      [2, 'transform'],
    ]);
    await tm.runUntilIdle();
    const done = await tm.getJob(fork.id);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.output, { sum: 6, data: 'batch-7' });
    assert.deepEqual(ran, { fetch: 1, transform: 1, load: 2 }, 'only the failing step ran again');

    const original = await tm.getJobDetail(id);
    assert.equal(original?.job.status, 'failed', 'the original is left as it is');
    assert.deepEqual(
      original?.checkpoints.map((c) => c.kind),
      ['step', 'step', 'step-failed'],
      'its record as it was',
    );
    assert.deepEqual(original?.lineage, { forkedFrom: null, forks: [fork.id] });
    assert.deepEqual((await tm.getJobDetail(fork.id))?.lineage, { forkedFrom: id, forks: [] });
    const audit = await tm.listAudit({ action: 'fork' });
    assert.equal(audit[0]?.target.jobId, id);
  });

  test('a fork from a step keeps only what was recorded before it, with new data when given', async () => {
    const tm = await openOnClock();
    const { ran, state, handler } = pipeline();
    state.fixed = true;
    tm.createQueue({ name: 'etl', handler });
    const { id } = await tm.addJob({ queue: 'etl', data: 'old' });
    await tm.runUntilIdle();
    const fork = await tm.forkJob(id, { from: { step: 'transform' }, data: 'new' });
    assert.deepEqual(
      (await tm.getJobDetail(fork.id))?.checkpoints.map((c) => c.name),
      ['fetch'],
    );
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(fork.id))?.output, { sum: 6, data: 'new' });
    assert.deepEqual(ran, { fetch: 1, transform: 2, load: 2 });
  });

  test('bad fork points are refused with typed errors naming the field, and nothing is written', async () => {
    const tm = await openOnClock();
    const { state, handler } = pipeline();
    state.fixed = true;
    tm.createQueue({ name: 'etl', handler });
    const { id } = await tm.addJob({ queue: 'etl' });
    await tm.runUntilIdle();
    const before = await jobCount(tm, tm);
    await assert.rejects(
      tm.forkJob(id, { from: { step: 'nope' } }),
      (e: unknown) =>
        e instanceof InvalidOptionError && e.details.field === 'from.step' && /fetch/.test(e.message),
    );
    await assert.rejects(
      tm.forkJob(id, { from: { failure: true } }),
      (e: unknown) => e instanceof InvalidJobStateError && /only a failed job/.test(e.message),
    );
    await assert.rejects(
      tm.forkJob(id, { from: { everything: true } as never }),
      (e: unknown) => e instanceof InvalidOptionError && e.details.field === 'from',
    );
    await assert.rejects(tm.forkJob('987654', { from: { failure: true } }), JobNotFoundError);
    assert.equal(await jobCount(tm, tm), before);
  });

  test('forkJobs forks every failed job of a filter through the bulk path, with a dry-run count first', async () => {
    const tm = await openOnClock();
    const { state, handler } = pipeline();
    tm.createQueue({ name: 'etl', maxAttempts: 1, handler });
    const added = await tm.addJobs([{ queue: 'etl' }, { queue: 'etl' }, { queue: 'etl' }]);
    await tm.runUntilIdle();
    const dry = await tm.forkJobs(
      { queue: 'etl', status: 'failed' },
      { from: { failure: true }, dryRun: true },
    );
    assert.equal(dry.matched, 3);
    assert.equal(dry.done, 0);
    assert.equal(await jobCount(tm, tm), 3, 'a dry run forks nothing');
    state.fixed = true;
    const outcome = await tm.forkJobs(
      { queue: 'etl', status: 'failed' },
      { from: { failure: true }, maxMatched: dry.matched, throughId: dry.throughId },
    );
    assert.equal(outcome.done, 3);
    await tm.runUntilIdle();
    assert.equal((await tm.countJobs({ queue: 'etl', status: 'completed' })).count, 3);
    for (const { id } of added) assert.equal((await tm.getJobDetail(id))?.lineage.forks.length, 1);
    const missing = await tm.forkJobs({ queue: 'etl', status: 'completed' }, { from: { step: 'nope' } });
    assert.deepEqual(missing.refused, { 'no-fork-point': 3 });
    await assert.rejects(
      tm.forkJobs({ queue: 'etl', status: 'failed' }, { from: 'failure' as never }),
      (e: unknown) => e instanceof InvalidOptionError && e.details.field === 'options.from',
    );
  });

  test('the fork outlives its original: deleting the original leaves the fork and its pointer back', async () => {
    const tm = await openOnClock();
    const { handler } = pipeline();
    tm.createQueue({ name: 'etl', maxAttempts: 1, handler });
    const { id } = await tm.addJob({ queue: 'etl' });
    await tm.runUntilIdle();
    const fork = await tm.forkJob(id, { from: { failure: true } });
    await tm.deleteJob(id);
    const detail = await tm.getJobDetail(fork.id);
    assert.equal(detail?.job.status, 'pending');
    assert.equal(detail?.lineage.forkedFrom, id);
    assert.equal(detail?.checkpoints.length, 2, "the fork's copies are its own");
  });
});
