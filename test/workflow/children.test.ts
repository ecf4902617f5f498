import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';
import { count, startWorker, table, waitForStatus } from './fixtures/helpers.js';

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describeEachDriver('ctx.runChild', ({ open }) => {
  test('creates each child once across replays, waits for it and returns its output', async () => {
    const tm = await open({ logger: silentLogger });
    const first = gate();
    const runs = { parent: 0, child: 0 };
    tm.createQueue({
      name: 'child',
      handler: async (job) => {
        runs.child++;
        if ((job.data as { n: number }).n === 1) await first.opened;
        return { doubled: (job.data as { n: number }).n * 2 };
      },
    });
    tm.createQueue({
      name: 'parent',
      handler: async (_job, ctx) => {
        runs.parent++;
        const a = await ctx.runChild<{ doubled: number }>('child', { n: 1 });
        const b = await ctx.runChild<{ doubled: number }>('child', { n: 2 });
        return a.doubled + b.doubled;
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'parent' });
    const parked = await waitForStatus(tm, id, 'waiting');
    assert.equal(parked.lockedBy, null);
    const [child] = (await tm.getJobDetail(id))?.children ?? [];
    assert.equal(child.parentId, id);
    assert.equal(child.rootId, id);
    await waitForStatus(tm, child.id, 'active');
    assert.equal((await tm.getJob(id))?.status, 'waiting', 'the parent waits while its child runs');
    first.open();
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 6);
    assert.ok(runs.parent >= 3, 'the parent was replayed after each child');
    assert.equal(runs.child, 2);
    assert.equal(await count(tm, 'jobs', 'parent_id = $1', [id]), 2);
    const children = (await tm.getJobDetail(id))?.children ?? [];
    assert.deepEqual(
      children.map((c) => [c.queue, c.status, c.data, c.output]),
      [
        ['child', 'completed', { n: 1 }, { doubled: 2 }],
        ['child', 'completed', { n: 2 }, { doubled: 4 }],
      ],
    );
  });

  test('children started together run side by side and each is created once', async () => {
    const tm = await open({ logger: silentLogger });
    let childRuns = 0;
    tm.createQueue({
      name: 'child',
      handler: (job) => {
        childRuns++;
        return job.data;
      },
    });
    tm.createQueue({
      name: 'parent',
      handler: (_job, ctx) => Promise.all(['a', 'b', 'c'].map((x) => ctx.runChild('child', x))),
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'parent' });
    assert.deepEqual((await waitForStatus(tm, id, 'completed')).output, ['a', 'b', 'c']);
    assert.equal(childRuns, 3);
    assert.equal(await count(tm, 'jobs', 'parent_id = $1', [id]), 3);
  });

  test('a failed child throws ChildJobFailedError in the parent', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'child',
      maxAttempts: 1,
      handler: () => {
        throw new Error('child broke');
      },
    });
    let caught: unknown = null;
    tm.createQueue({
      name: 'parent',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        try {
          return await ctx.runChild('child');
        } catch (error) {
          caught = error;
          throw error;
        }
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'parent' });
    const failed = await waitForStatus(tm, id, 'failed');
    assert.equal(failed.error?.name, 'ChildJobFailedError');
    assert.equal((caught as { code?: string }).code, 'CHILD_JOB_FAILED');
    const details = (caught as { details: { status: string; error: { message: string } } }).details;
    assert.equal(details.status, 'failed');
    assert.equal(details.error.message, 'child broke');
    // The parent's own stored error says which child failed and why, without opening details.
    const childId = (caught as { childId: string }).childId;
    assert.match(childId, /^[1-9][0-9]*$/);
    assert.equal((caught as { queue: string }).queue, 'child');
    assert.equal(failed.error?.message, `child job ${childId} (queue 'child') ended failed: child broke`);
  });

  test('a retried parent reuses its finished child instead of running it again', async () => {
    const tm = await open({ logger: silentLogger });
    let childRuns = 0;
    let failParent = true;
    tm.createQueue({
      name: 'child',
      handler: () => {
        childRuns++;
        return 'made once';
      },
    });
    tm.createQueue({
      name: 'parent',
      maxAttempts: 2,
      backoff: { delaySeconds: 0, jitter: false },
      handler: async (job, ctx) => {
        const made = await ctx.runChild('child');
        if (job.attempts === 1) throw new Error('parent fails after its child finished');
        if (failParent) throw new Error('parent fails on its last attempt too');
        return made;
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'parent' });
    const failed = await waitForStatus(tm, id, 'failed');
    assert.equal(failed.attempts, 2);
    failParent = false;
    await tm.retryJob(id);
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'made once');
    assert.equal(childRuns, 1);
    assert.equal(await count(tm, 'jobs', 'parent_id = $1', [id]), 1);
  });

  test('retryJob on a parent whose child failed runs the child again', async () => {
    const tm = await open({ logger: silentLogger });
    let childRuns = 0;
    tm.createQueue({
      name: 'child',
      maxAttempts: 1,
      handler: () => {
        childRuns++;
        if (childRuns === 1) throw new Error('first run fails');
        return 'second run';
      },
    });
    tm.createQueue({ name: 'parent', maxAttempts: 1, handler: (_job, ctx) => ctx.runChild('child') });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'parent' });
    await waitForStatus(tm, id, 'failed');
    await tm.retryJob(id);
    assert.equal((await waitForStatus(tm, id, 'completed')).output, 'second run');
    assert.equal(childRuns, 2);
    assert.equal(await count(tm, 'jobs', 'parent_id = $1', [id]), 1);
  });

  test('bad child options fail the parent with the field named, and create no child', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'child', handler: () => 'x' });
    tm.createQueue({
      name: 'parent',
      maxAttempts: 1,
      handler: (job, ctx) => ctx.runChild('child', null, job.data as Record<string, unknown>),
    });
    await startWorker(tm);
    const cases: [Record<string, unknown>, string][] = [
      [{ priorty: 1 }, 'options.priorty'],
      [{ maxAttempts: 0 }, 'options.maxAttempts'],
      [{ delaySeconds: -1 }, 'options.delaySeconds'],
    ];
    for (const [options, field] of cases) {
      const { id } = await tm.addJob({ queue: 'parent', data: options });
      const failed = await waitForStatus(tm, id, 'failed');
      assert.equal(failed.error?.name, 'InvalidOptionError');
      assert.match(failed.error?.message ?? '', new RegExp(`'${field}'`));
      assert.equal(await count(tm, 'jobs', 'parent_id = $1', [id]), 0);
    }
  });

  test('cancelling a parent cancels its in-flight descendants, grandchildren too', async () => {
    const tm = await open({ logger: silentLogger });
    let grandchildAborted = false;
    tm.createQueue({
      name: 'leaf',
      handler: async (job, ctx) => {
        if ((job.data as string) === 'quick') return 'done early';
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            grandchildAborted = true;
            resolve();
          }),
        );
        return 'never stored';
      },
    });
    tm.createQueue({ name: 'middle', handler: (_job, ctx) => ctx.runChild('leaf', 'slow') });
    tm.createQueue({
      name: 'top',
      handler: async (_job, ctx) => {
        await ctx.runChild('leaf', 'quick');
        return ctx.runChild('middle');
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'top' });
    const grandchild = await waitFor('the grandchild to run', async () => {
      const [row] = await rawQuery<{ id: string }>(
        tm,
        `select id::text as id from ${table(tm, 'jobs')} where root_id = $1 and parent_id <> $1 and status = 'active'`,
        [id],
      );
      return row ?? null;
    });
    await tm.cancelJob(id);
    const tree = (await tm.getJobDetail(id))?.children ?? [];
    const middle = tree.find((c) => c.queue === 'middle');
    assert.ok(middle);
    assert.equal((await tm.getJob(id))?.status, 'cancelled');
    assert.equal(middle.status, 'cancelled');
    assert.equal((await tm.getJob(grandchild.id))?.status, 'cancelled');
    assert.equal(
      tree.find((c) => c.queue === 'leaf')?.status,
      'completed',
      'a finished child stays as it was',
    );
    await waitFor('the grandchild handler to see its abort', () => grandchildAborted);
    // Its late return changes nothing.
    await waitFor('no job active any more', async () => (await count(tm, 'jobs', "status = 'active'")) === 0);
    assert.equal((await tm.getJob(grandchild.id))?.status, 'cancelled');
    assert.equal((await tm.getJob(grandchild.id))?.output, null);
  });
});

describeEachDriver('getJobDetail', ({ open }) => {
  test('returns the job with its checkpoints, signals (pending or consumed) and children', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'child', handler: (job) => ({ echoed: job.data }) });
    tm.createQueue({
      name: 'wf',
      signals: { go: 1, later: 1 },
      handler: async (_job, ctx) => {
        const price = await ctx.step('price', () => 10);
        const go = await ctx.waitForSignal('go');
        const child = await ctx.runChild('child', { price });
        await ctx.sleep('rest', 3600);
        return { go, child };
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.signal(id, 'go', { approved: true });
    await tm.signal(id, 'later', 'unused');
    await startWorker(tm);
    const detail = await waitFor('the workflow to rest', async () => {
      const d = await tm.getJobDetail(id);
      return d?.job.status === 'waiting' && d.checkpoints.some((c) => c.name === 'rest') ? d : null;
    });
    assert.equal(detail.job.id, id);
    // In call order: each call's place in the run is its checkpoint's seq (the child's start too).
    assert.deepEqual(
      detail.checkpoints.map((c) => [c.seq, c.name, c.kind]).sort((a, b) => Number(a[0]) - Number(b[0])),
      [
        [1, 'price', 'step'],
        [2, 'wait:go#1', 'wait'],
        [3, 'child:child#1', 'child'],
        [4, 'rest', 'sleep'],
      ],
    );
    assert.equal(detail.checkpoints.find((c) => c.name === 'price')?.output, 10);
    assert.ok(detail.checkpoints.every((c) => c.createdAt instanceof Date));
    assert.deepEqual(
      detail.signals.map((s) => [s.name, s.payload, s.state, s.consumedAt instanceof Date, s.consumedBy]),
      [
        ['go', { approved: true }, 'consumed', true, 'wait:go#1'],
        ['later', 'unused', 'pending', false, null],
      ],
    );
    assert.equal(detail.children.length, 1);
    const [child] = detail.children;
    assert.equal(child.parentId, id);
    assert.equal(child.queue, 'child');
    assert.equal(child.status, 'completed');
    assert.deepEqual(child.output, { echoed: { price: 10 } });
    assert.equal(await tm.getJobDetail('987654321'), null);
  });
});
