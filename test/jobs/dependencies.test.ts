import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { toWorkflowView } from '../../src/admin/workflow-wait.js';
import {
  type DependencyOutcome,
  InvalidOptionError,
  type JobContext,
  silentLogger,
  type Tidemark,
} from '../../src/index.js';
import type { WorkflowViewRow } from '../../src/storage/storage.js';
import { runHandler, type TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver, describePostgresOnly } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';

/** A job row as the dashboard's wait view reads it. */
const waitRow = {
  status: 'waiting',
  paused_from: null,
  wait: null,
  run_at: 'infinity',
  wait_checkpoint: null,
  received: 0,
  child_id: null,
  child_queue: null,
  child_status: null,
  declared_signals: null,
} as WorkflowViewRow;

/** What the dependent's handler saw of its dependencies, by job id. */
type Seen = Map<string, DependencyOutcome[]>;

/** Queues: `work` returns its data's `out` or throws when `fail` is set; `join` records ctx.dependencies(). */
function queues(tm: Tidemark, seen: Seen): void {
  tm.createQueue({
    name: 'work',
    maxAttempts: 1,
    handler: (job) => {
      const data = (job.data ?? {}) as { out?: unknown; fail?: boolean };
      if (data.fail) throw new Error('work failed');
      return data.out ?? null;
    },
  });
  tm.createQueue({
    name: 'join',
    handler: async (job, ctx: JobContext) => {
      const deps = await ctx.dependencies();
      seen.set(job.id, deps);
      return deps.map((d) => d.output);
    },
  });
}

async function edges(tm: Tidemark, dependent: string): Promise<number> {
  return countRows(tm, 'job_dependencies', `job_id = ${Number(dependent)}`);
}

async function statusOf(tm: Tidemark, id: string): Promise<string | undefined> {
  return (await tm.getJob(id))?.status;
}

describeEachDriver('job dependencies', ({ openOnClock }) => {
  async function setup(): Promise<{ tm: TestTidemark; seen: Seen }> {
    const tm = await openOnClock();
    const seen: Seen = new Map();
    queues(tm, seen);
    return { tm, seen };
  }

  test('fan-in: C waits, holding no run time, until A and B have both completed, then reads their outputs', async () => {
    const { tm, seen } = await setup();
    const a = await tm.addJob({ queue: 'work', data: { out: 'a' }, delaySeconds: 10 });
    const b = await tm.addJob({ queue: 'work', data: { out: 'b' }, delaySeconds: 20 });
    const c = await tm.addJob({ queue: 'join', dependsOn: [b.id, a.id] });
    const waiting = await tm.getJob(c.id);
    assert.equal(waiting?.status, 'waiting');
    assert.equal(waiting?.attempts, 0);
    assert.equal(await edges(tm, c.id), 2);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'waiting');

    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, a.id), 'completed');
    assert.equal(await statusOf(tm, c.id), 'waiting', 'one dependency is not enough');
    assert.equal(seen.size, 0);

    await tm.clock.advance(10);
    await tm.runUntilIdle();
    const done = await tm.getJob(c.id);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.output, ['a', 'b'], 'in id order');
    const finishedB = (await tm.getJob(b.id))?.finishedAt?.getTime() ?? Number.POSITIVE_INFINITY;
    assert.ok((done?.startedAt?.getTime() ?? 0) >= finishedB, 'C starts after B finished');
    assert.deepEqual(
      seen.get(c.id)?.map((d) => [d.id, d.queue, d.status, d.output, d.error]),
      [
        [a.id, 'work', 'completed', 'a', null],
        [b.id, 'work', 'completed', 'b', null],
      ],
    );
    assert.equal(
      toWorkflowView({ ...waitRow, status: 'waiting', wait: { kind: 'dependencies' } }).wait?.kind,
      'dependencies',
      'the dashboard says what it waits for',
    );
    const detail = await tm.getJobDetail(c.id);
    assert.deepEqual(
      detail?.dependencies.map((d) => d.id),
      [a.id, b.id],
    );
  });

  test("a failed dependency fails the dependent at once ('fail', the default), naming it; its handler never runs", async () => {
    const { tm, seen } = await setup();
    const a = await tm.addJob({ queue: 'work', data: { fail: true } });
    const b = await tm.addJob({ queue: 'work', delaySeconds: 60 });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id, b.id] });
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, a.id), 'failed');
    const failed = await tm.getJob(c.id);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.error?.name, 'DependencyFailedError');
    assert.match(
      failed?.error?.message ?? '',
      new RegExp(`dependency ${a.id} \\(queue work\\) ended failed`),
    );
    assert.equal(failed?.attempts, 0);
    assert.ok(failed?.finishedAt);
    assert.equal(seen.size, 0);
    // B finishing later changes nothing.
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, b.id), 'completed');
    assert.equal(await statusOf(tm, c.id), 'failed');
  });

  test("'cancel': a cancelled dependency cancels the dependent", async () => {
    const { tm, seen } = await setup();
    const a = await tm.addJob({ queue: 'work', delaySeconds: 60 });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id], onDependencyFailure: 'cancel' });
    await tm.cancelJob(a.id);
    const cancelled = await tm.getJob(c.id);
    assert.equal(cancelled?.status, 'cancelled');
    assert.match(cancelled?.error?.message ?? '', /ended cancelled/);
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    assert.equal(seen.size, 0);
  });

  test("'run': the dependent runs anyway, and sees each dependency's status, output and error", async () => {
    const { tm, seen } = await setup();
    const a = await tm.addJob({ queue: 'work', data: { fail: true } });
    const b = await tm.addJob({ queue: 'work', data: { out: 2 } });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id, b.id], onDependencyFailure: 'run' });
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'completed');
    const deps = seen.get(c.id) ?? [];
    assert.deepEqual(
      deps.map((d) => [d.status, d.output, d.error?.message ?? null]),
      [
        ['failed', null, 'work failed'],
        ['completed', 2, null],
      ],
    );
  });

  test('a dependency retried by hand and finishing again is counted once: the dependent still waits for the others', async () => {
    const { tm } = await setup();
    let failing = true;
    tm.createQueue({
      name: 'flaky',
      maxAttempts: 1,
      handler: () => {
        if (failing) throw new Error('not yet');
        return 'fixed';
      },
    });
    const a = await tm.addJob({ queue: 'flaky' });
    const b = await tm.addJob({ queue: 'work', delaySeconds: 60 });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id, b.id], onDependencyFailure: 'run' });
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, a.id), 'failed');
    failing = false;
    await tm.retryJob(a.id);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, a.id), 'completed');
    assert.equal(await statusOf(tm, c.id), 'waiting', 'B has not finished');
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'completed');
    assert.deepEqual((await tm.getJob(c.id))?.output, ['fixed', null]);
  });

  test('an expired dependency counts as failed', async () => {
    const { tm } = await setup();
    await tm.pauseQueue('work');
    const a = await tm.addJob({ queue: 'work', expireInSeconds: 5 });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id] });
    await tm.clock.advance(6);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, a.id), 'expired');
    const failed = await tm.getJob(c.id);
    assert.equal(failed?.status, 'failed');
    assert.match(failed?.error?.message ?? '', /ended expired/);
  });

  test('dependencies already finished at the add: completed ones let it run, a failed one applies the policy', async () => {
    const { tm, seen } = await setup();
    const ok = await tm.addJob({ queue: 'work', data: { out: 'ok' } });
    const bad = await tm.addJob({ queue: 'work', data: { fail: true } });
    await tm.runUntilIdle();
    const runs = await tm.addJob({ queue: 'join', dependsOn: [ok.id] });
    assert.equal(await statusOf(tm, runs.id), 'pending');
    const fails = await tm.addJob({ queue: 'join', dependsOn: [ok.id, bad.id] });
    assert.equal(await statusOf(tm, fails.id), 'failed');
    const cancels = await tm.addJob({ queue: 'join', dependsOn: [bad.id], onDependencyFailure: 'cancel' });
    assert.equal(await statusOf(tm, cancels.id), 'cancelled');
    const anyway = await tm.addJob({ queue: 'join', dependsOn: [bad.id], onDependencyFailure: 'run' });
    assert.equal(await statusOf(tm, anyway.id), 'pending');
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, runs.id), 'completed');
    assert.equal(await statusOf(tm, anyway.id), 'completed');
    assert.deepEqual([...seen.keys()].sort(), [runs.id, anyway.id].sort());
  });

  test('keeps its own run time: a delayed dependent released early waits for it', async () => {
    const { tm } = await setup();
    const a = await tm.addJob({ queue: 'work' });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id], delaySeconds: 30 });
    await tm.runUntilIdle();
    const released = await tm.getJob(c.id);
    assert.equal(released?.status, 'pending');
    assert.equal(released?.runAt.getTime(), tm.clock.now().getTime() + 30_000);
    await tm.clock.advance(30);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'completed');
  });

  test('a dependent paused while it waits is released as pending, and runs once resumed', async () => {
    const { tm } = await setup();
    const a = await tm.addJob({ queue: 'work', delaySeconds: 5 });
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id] });
    await tm.pauseJob(c.id);
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'paused');
    await tm.resumeJob(c.id);
    assert.equal(await statusOf(tm, c.id), 'pending');
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'completed');
  });

  test('bad dependsOn is refused naming the field, and nothing is written (addJob and addJobs)', async () => {
    const { tm } = await setup();
    const a = await tm.addJob({ queue: 'work', delaySeconds: 60 });
    const before = { jobs: await countRows(tm, 'jobs'), edges: await countRows(tm, 'job_dependencies') };
    const dependentsBefore = await rawQuery<{ n: number }>(
      tm,
      `select dependents as n from "${tm.schema}".jobs where id = $1::bigint`,
      [a.id],
    );
    const refused = async (call: () => Promise<unknown>, field: RegExp) => {
      await assert.rejects(call, (error: unknown) => {
        assert.ok(error instanceof InvalidOptionError, String(error));
        assert.match(error.field, field);
        return true;
      });
    };
    await refused(() => tm.addJob({ queue: 'join', dependsOn: [a.id, '999999'] }), /^dependsOn$/);
    await refused(
      () => tm.addJob({ queue: 'join', dependsOn: Array.from({ length: 1001 }, (_, i) => String(i + 1)) }),
      /^dependsOn$/,
    );
    await refused(() => tm.addJob({ queue: 'join', dependsOn: [] }), /^dependsOn$/);
    await refused(() => tm.addJob({ queue: 'join', dependsOn: a.id as unknown as string[] }), /^dependsOn$/);
    await refused(() => tm.addJob({ queue: 'join', dependsOn: ['x'] }), /^dependsOn\[0\]$/);
    await refused(
      () => tm.addJob({ queue: 'join', dependsOn: [a.id], onDependencyFailure: 'skip' as 'run' }),
      /^onDependencyFailure$/,
    );
    await refused(() => tm.addJob({ queue: 'join', onDependencyFailure: 'run' }), /^onDependencyFailure$/);
    await refused(
      () => tm.addJob({ queue: 'join', dependsOn: [a.id], debounce: { key: 'k', seconds: 1 } }),
      /^dependsOn$/,
    );
    await refused(
      () =>
        tm.addJobs([
          { queue: 'work' },
          { queue: 'join', dependsOn: [a.id] },
          { queue: 'join', dependsOn: ['999999'] },
        ]),
      /^jobs\[2\]\.dependsOn$/,
    );
    assert.deepEqual(
      { jobs: await countRows(tm, 'jobs'), edges: await countRows(tm, 'job_dependencies') },
      before,
    );
    assert.deepEqual(
      await rawQuery(tm, `select dependents as n from "${tm.schema}".jobs where id = $1::bigint`, [a.id]),
      dependentsBefore,
    );
  });

  test('addJobs adds several dependents in one call; a dependency named by both releases both', async () => {
    const { tm } = await setup();
    const a = await tm.addJob({ queue: 'work', data: { out: 1 }, delaySeconds: 5 });
    const [c, d] = await tm.addJobs([
      { queue: 'join', dependsOn: [a.id] },
      { queue: 'join', dependsOn: [a.id] },
    ]);
    assert.equal(await statusOf(tm, c.id), 'waiting');
    assert.equal(await statusOf(tm, d.id), 'waiting');
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'completed');
    assert.equal(await statusOf(tm, d.id), 'completed');
  });

  test('a dependent on 1,000 jobs (the most one add names) runs once the last of them finishes', async () => {
    const { tm, seen } = await setup();
    const many = await tm.addJobs(
      Array.from({ length: 1000 }, (_, i) => ({
        queue: 'work',
        data: { out: i },
        delaySeconds: i < 999 ? 0 : 10,
      })),
    );
    const c = await tm.addJob({ queue: 'join', dependsOn: many.map((j) => j.id) });
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'waiting', '999 of 1,000 finished');
    const [left] = await rawQuery<{ n: number }>(
      tm,
      `select dependencies_left as n from "${tm.schema}".jobs where id = $1::bigint`,
      [c.id],
    );
    assert.equal(left.n, 1);
    await tm.clock.advance(10);
    await tm.runUntilIdle();
    assert.equal(await statusOf(tm, c.id), 'completed');
    assert.equal(seen.get(c.id)?.length, 1000);
    assert.equal(seen.get(c.id)?.[999].output, 999);
  });

  test('retention keeps a finished dependency while a dependent that needs it is in flight', async () => {
    const { tm } = await setup();
    const a = await tm.addJob({ queue: 'work', data: { out: 'kept' }, retention: { ttlSeconds: 1 } });
    await tm.runUntilIdle();
    const c = await tm.addJob({ queue: 'join', dependsOn: [a.id], delaySeconds: 100 });
    await tm.clock.advance(10);
    await tm.sweep();
    assert.equal(await statusOf(tm, a.id), 'completed', 'kept: C still needs it');
    assert.equal(await statusOf(tm, c.id), 'pending');
    await tm.clock.advance(100);
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(c.id))?.output, ['kept']);
    await tm.sweep();
    assert.equal(await tm.getJob(a.id), null, 'deleted once C finished');
    await tm.deleteJob(c.id);
    assert.equal(await edges(tm, c.id), 0, 'the edges leave with the dependent');
  });
});

describeEachDriver('job dependencies under a real worker', ({ open }) => {
  test('a dependent added while its dependency finishes is neither stranded nor started early', async () => {
    const tm = await open({ logger: silentLogger });
    const seen: Seen = new Map();
    queues(tm, seen);
    const worker = fastWorker(tm, { concurrency: 4 });
    await worker.start();
    try {
      const pairs: { a: string; c: string }[] = [];
      for (let i = 0; i < 20; i++) {
        const a = await tm.addJob({ queue: 'work', data: { out: i } });
        // Give the worker a moment to pick A up, so the add meets it anywhere in its run.
        if (i % 2 === 1) await new Promise((resolve) => setTimeout(resolve, i % 4));
        const c = await tm.addJob({ queue: 'join', dependsOn: [a.id] });
        pairs.push({ a: a.id, c: c.id });
      }
      for (const { a, c } of pairs) {
        const done = await waitForStatus(tm, c, 'completed', 15_000);
        const dependency = await tm.getJob(a);
        assert.equal(dependency?.status, 'completed');
        assert.ok(
          (done.startedAt?.getTime() ?? 0) >= (dependency?.finishedAt?.getTime() ?? Number.POSITIVE_INFINITY),
        );
        assert.equal(seen.get(c)?.[0].status, 'completed', 'it saw its dependency completed');
      }
    } finally {
      await worker.stop();
    }
  });
});

describePostgresOnly('job dependencies: the add and the finish, interleaved', ({ open, kind }) => {
  async function heldSession(tm: Tidemark): Promise<pg.Client> {
    const { PG_URL } = await import('../support/databases.js');
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`set search_path to "${tm.schema}"`);
    assert.equal(kind, 'pg');
    return client;
  }

  test('a finish committed while the add waits on its lock is read as finished', async () => {
    const tm = await open({ logger: silentLogger });
    queues(tm, new Map());
    const a = await tm.addJob({ queue: 'work', delaySeconds: 3600 });
    const other = await heldSession(tm);
    try {
      await other.query('begin');
      await other.query(`update jobs set status = 'completed', finished_at = now() where id = $1`, [a.id]);
      const adding = tm.addJob({ queue: 'join', dependsOn: [a.id] });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await other.query('commit');
      const c = await adding;
      assert.equal(await statusOf(tm, c.id), 'pending', 'not left waiting for a dependency that finished');
    } finally {
      await other.end();
    }
  });

  test('a finish that waits on the add lock releases the dependent once the add commits', async () => {
    const tm = await open({ logger: silentLogger });
    queues(tm, new Map());
    const a = await tm.addJob({ queue: 'work', delaySeconds: 3600 });
    const other = await heldSession(tm);
    try {
      let finished = false;
      const c = await tm.transaction(async (tx) => {
        const added = await tm.addJob({ queue: 'join', dependsOn: [a.id] }, { tx });
        const finishing = other
          .query(`update jobs set status = 'completed', finished_at = now() where id = $1`, [a.id])
          .then(() => {
            finished = true;
          });
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(finished, false, 'the finish waits for the add');
        return { added, finishing };
      });
      await c.finishing;
      assert.equal(await statusOf(tm, c.added.id), 'pending', 'released by the finish');
    } finally {
      await other.end();
    }
  });
});

test("runHandler's fake context answers ctx.dependencies() with the dependencies given (a copy)", async () => {
  const given: DependencyOutcome[] = [
    { id: '7', queue: 'work', status: 'completed', output: { n: 1 }, error: null },
  ];
  const run = await runHandler(async (_job, ctx) => (await ctx.dependencies()).map((d) => d.output), null, {
    dependencies: given,
  });
  assert.deepEqual(run.output, [{ n: 1 }]);
  const none = await runHandler(async (_job, ctx) => (await ctx.dependencies()).length, null);
  assert.equal(none.output, 0);
});
