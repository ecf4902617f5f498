import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, JobNotFoundError, type JobUpdate, silentLogger } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

describeEachDriver('tm.subscribe', ({ open }) => {
  test('streams status and progress as they change, ending after the job finishes', async () => {
    const tm = await open({ logger: silentLogger });
    // The handler waits at each point until the test lets it go on.
    let step: (() => void) | null = null;
    const next = () => new Promise<void>((resolve) => (step = resolve));
    const release = async (what: string) => {
      const go = await waitFor(what, () => step);
      step = null;
      go();
    };
    tm.createQueue({
      name: 'import',
      handler: async (_job, ctx) => {
        await next();
        ctx.progress(30);
        ctx.metadata.set('rows', 300);
        await next();
        ctx.progress({ done: 1000, total: 1000 });
        return 'imported';
      },
    });
    const { id } = await tm.addJob({ queue: 'import', data: {} });
    const seen: JobUpdate[] = [];
    // A long poll: every change below is announced (a worker here, the notes' notification).
    const watching = (async () => {
      for await (const update of tm.subscribe(id, { pollSeconds: 30 })) seen.push(update);
    })();
    await waitFor('the first state', () => seen.length === 1);
    assert.equal(seen[0].status, 'pending');
    const worker = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await worker.start();
    await waitFor('the start', () => seen.some((u) => u.status === 'active'));
    await release('the handler to start');
    await waitFor('the progress, written within a second', () => seen.some((u) => u.progress === 30));
    await release('the handler to report');
    await watching;
    await worker.stop();
    const last = seen[seen.length - 1];
    assert.deepEqual(
      [last.status, last.progress, last.metadata, last.output],
      ['completed', { done: 1000, total: 1000 }, { rows: 300 }, 'imported'],
    );
    const states = seen.map((u) => `${u.status}:${JSON.stringify(u.progress)}`);
    assert.deepEqual(states, [...new Set(states)], 'no state twice');
  });

  test('a change nothing announces (a cancel) shows at the next poll', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => {} });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const iterator = tm.subscribe(id, { pollSeconds: 0.1 });
    assert.equal((await iterator.next()).value?.status, 'pending');
    await tm.cancelJob(id);
    const update = await iterator.next();
    assert.equal(update.value?.status, 'cancelled');
    assert.equal((await iterator.next()).done, true, 'a finished job ends the stream');
  });

  test('breaking out stops it; a missing job and bad input are refused', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => {} });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    for await (const update of tm.subscribe(id, { pollSeconds: 0.05 })) {
      assert.equal(update.status, 'pending');
      break;
    }
    await assert.rejects(async () => {
      for await (const _ of tm.subscribe('999999')) break;
    }, JobNotFoundError);
    assert.throws(
      () => tm.subscribe('x'),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'id',
    );
    assert.throws(
      () => tm.subscribe(id, { pollSeconds: 0 }),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'options.pollSeconds',
    );
  });
});
