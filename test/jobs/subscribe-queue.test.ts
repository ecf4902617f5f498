import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, type JobUpdate, silentLogger, type Tidemark } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

/** Read a queue's stream into `seen` until `stop` aborts it. */
function watch(tm: Tidemark, queue: string, pollSeconds: number) {
  const seen: JobUpdate[] = [];
  const abort = new AbortController();
  const done = (async () => {
    for await (const update of tm.subscribe({ queue }, { pollSeconds, signal: abort.signal }))
      seen.push(update);
  })();
  return {
    seen,
    states: (id: string) =>
      seen.filter((u) => u.id === id).map((u) => `${u.status}:${JSON.stringify(u.progress)}`),
    /** Ends the stream, idle or not (no update needs to come to break on). */
    async stop() {
      abort.abort();
      await done;
    },
  };
}

const fast = { pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false } as const;

describeEachDriver('tm.subscribe({ queue })', ({ open }) => {
  test('the running jobs first, then each add, start, progress and finish of that queue alone, each state once', async () => {
    const tm = await open({ logger: silentLogger });
    let go: (() => void) | null = null;
    tm.createQueue({
      name: 'import',
      concurrency: 1,
      handler: async (_job, ctx) => {
        ctx.progress(50);
        await new Promise<void>((resolve) => (go = resolve));
        return 'done';
      },
    });
    tm.createQueue({ name: 'other', handler: () => {} });
    const first = await tm.addJob({ queue: 'import', data: {} });
    const worker = tm.worker(fast);
    await worker.start();
    await waitFor('the first job to run', () => go);
    const stream = watch(tm, 'import', 30);
    await waitFor('the running job', () => stream.seen.length > 0);
    assert.deepEqual(
      stream.seen.map((u) => [u.id, u.status]),
      [[first.id, 'active']],
      'a job already there shows only once it runs',
    );
    const second = await tm.addJob({ queue: 'import', data: {} });
    await tm.addJob({ queue: 'other', data: {} });
    await waitFor('the add', () => stream.states(second.id).length > 0);
    (go as unknown as () => void)();
    go = null;
    await waitFor('the second job to run', () => go);
    // Held until its progress shows: states closer together than a read coalesce.
    await waitFor('its progress', () => stream.states(second.id).includes('active:50'));
    (go as unknown as () => void)();
    await waitFor('both finishes', () =>
      [first.id, second.id].every((id) => stream.states(id).at(-1)?.startsWith('completed')),
    );
    await stream.stop();
    await worker.stop();
    assert.deepEqual(
      new Set(stream.seen.map((u) => u.queue)),
      new Set(['import']),
      'no job of another queue',
    );
    assert.equal(stream.states(second.id)[0], 'pending:null');
    for (const id of [first.id, second.id]) {
      const states = stream.states(id);
      assert.deepEqual(states, [...new Set(states)], `no state twice for ${id}: ${states}`);
      assert.equal(states.at(-1), 'completed:50');
    }
    assert.equal(stream.seen.find((u) => u.status === 'completed')?.output, 'done');
  });

  test('a change made by another engine shows at the next poll', async () => {
    const tm = await open({ logger: silentLogger });
    const elsewhere = await open({ logger: silentLogger, schema: tm.schema });
    const stream = watch(tm, 'mail', 0.1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    elsewhere.createQueue({ name: 'mail' });
    const { id } = await elsewhere.addJob({ queue: 'mail', data: {} });
    await waitFor('the add', () => stream.states(id).length === 1);
    await elsewhere.cancelJob(id);
    await waitFor('the cancel', () => stream.states(id).length === 2);
    await stream.stop();
    assert.deepEqual(stream.states(id), ['pending:null', 'cancelled:null']);
  });

  test('a drain of more jobs than one read takes shows every finish once', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'bulk', concurrency: 20, handler: () => {} });
    const stream = watch(tm, 'bulk', 5);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const added = await tm.addJobs(Array.from({ length: 1_200 }, (_, i) => ({ queue: 'bulk', data: { i } })));
    const worker = tm.worker(fast);
    await worker.start();
    const finished = () => new Set(stream.seen.filter((u) => u.status === 'completed').map((u) => u.id));
    await waitFor('every finish', () => finished().size === added.length, { timeoutMs: 60_000 });
    await worker.stop();
    await stream.stop();
    const completions = stream.seen.filter((u) => u.status === 'completed');
    assert.equal(completions.length, added.length, 'each once');
    assert.deepEqual([...finished()].sort(), added.map((j) => j.id).sort());
  });

  test('a bad target is refused, naming what was wrong', async () => {
    const tm = await open({ logger: silentLogger });
    const refused = (target: unknown, field: string) =>
      assert.throws(
        () => tm.subscribe(target as { queue: string }),
        (error: unknown) => error instanceof InvalidOptionError && error.field === field,
        field,
      );
    refused({ queue: '' }, 'target.queue');
    refused({ queue: 'x'.repeat(201) }, 'target.queue');
    refused({ queue: 'q', status: 'active' }, 'target.status');
    refused(null, 'target');
    refused(7, 'target');
  });
});
