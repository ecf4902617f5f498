import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger, TidemarkError } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { findInconsistencies, sqlOf } from './support/consistency.js';

const PARENTS = 24;
const CHILDREN = 3;
const OPERATOR_MS = 6_000;
/**
 * Retries come back within half a second: a parent failed again and again by its children's
 * cancels would otherwise be due tens of seconds after the operators stop (the default backoff
 * doubles from 1 s), later than the wait for the trees to settle.
 */
const QUICK_RETRIES = { delaySeconds: 0.05, maxDelaySeconds: 0.5 };

// Operators delete, cancel and retry jobs while workers finish fan-outs and sweeps remove due
// trees. A workflow replays its runChild calls from the child rows: a child deleted while its
// parent is still in flight would be created again on replay and run twice. Deletes of such
// children must be refused, whatever the interleaving.
describeEachDriver('operators racing workflows', ({ open }) => {
  test('deletes, cancels, retries and sweeps never make a workflow create a child twice', async () => {
    const tm = await open({ logger: silentLogger });
    // Which child ids ever existed for each (parent, step): more than one is a re-created child.
    const childIds = new Map<string, Set<string>>();
    const note = (key: string, id: string) => {
      const ids = childIds.get(key) ?? new Set<string>();
      ids.add(id);
      childIds.set(key, ids);
    };
    tm.createQueue<{ i: number }>({
      name: 'race.child',
      backoff: QUICK_RETRIES,
      retention: { completed: 1, failed: 1, cancelled: 1, expired: 1 },
      handler: async (job) => {
        note(`${job.parentId}:${job.data.i}`, job.id);
        await sleep(Math.random() * 15);
        return job.data.i;
      },
    });
    tm.createQueue({
      name: 'race.parent',
      backoff: QUICK_RETRIES,
      retention: { completed: 1, failed: 1, cancelled: 1, expired: 1 },
      handler: async (_job, ctx) => {
        let sum = 0;
        for (let i = 0; i < CHILDREN; i++) sum += await ctx.runChild<number>('race.child', { i });
        return sum;
      },
    });
    const workers = [fastWorker(tm, { concurrency: 4 }), fastWorker(tm, { concurrency: 4 })];
    for (const worker of workers) await worker.start();
    await tm.addJobs(Array.from({ length: PARENTS }, () => ({ queue: 'race.parent' })));

    const unexpected: unknown[] = [];
    const history: string[] = [];
    const actions = { refused: 0, done: 0 };
    const operate = async () => {
      const deadline = Date.now() + OPERATOR_MS;
      while (Date.now() < deadline) {
        const [row] = await rawQuery<{ id: string }>(
          tm,
          `select id::text as id from "${tm.schema}".jobs order by random() limit 1`,
        );
        if (!row) {
          await sleep(5);
          continue;
        }
        const index = Math.floor(Math.random() * 4);
        const action = [
          () => tm.deleteJob(row.id),
          () => tm.deleteWorkflowSubtree(row.id),
          () => tm.cancelJob(row.id),
          () => tm.retryJob(row.id),
        ][index];
        const which = ['deleteJob', 'deleteWorkflowSubtree', 'cancelJob', 'retryJob'][index];
        try {
          const before = (await tm.getJob(row.id))?.status;
          await action();
          history.push(`${row.id} ${which} (was ${before})`);
          actions.done++;
        } catch (error) {
          if (error instanceof TidemarkError) actions.refused++;
          else unexpected.push(error);
        }
        await sleep(Math.random() * 3);
      }
    };
    const sweep = async () => {
      const deadline = Date.now() + OPERATOR_MS;
      while (Date.now() < deadline) {
        await tm.sweep();
        await sleep(50);
      }
    };
    // Child rows seen by scanning too, so a child re-created and deleted before it ran counts.
    const scan = async () => {
      const deadline = Date.now() + OPERATOR_MS;
      while (Date.now() < deadline) {
        const rows = await rawQuery<{ id: string; parent_id: string; i: number }>(
          tm,
          `select id::text as id, parent_id::text as parent_id, (data->>'i')::int as i
             from "${tm.schema}".jobs where parent_id is not null`,
        );
        for (const row of rows) note(`${row.parent_id}:${row.i}`, row.id);
        await sleep(20);
      }
    };
    await Promise.all([operate(), operate(), sweep(), scan()]);
    assert.deepEqual(unexpected, []);

    // Let what is left finish, then check every tree.
    let inFlight: unknown[] = [];
    await waitFor(
      'no job in flight',
      async () => {
        inFlight = await rawQuery(
          tm,
          `select id::text as id, queue, status, attempts, run_at, locked_until, wait from "${tm.schema}".jobs
            where status in ('pending', 'active', 'waiting', 'retry') order by id limit 10`,
        );
        return inFlight.length === 0;
      },
      { timeoutMs: 30_000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; still in flight: ${JSON.stringify(inFlight)}`);
    });
    for (const worker of workers) await worker.stop();

    const recreated = [...childIds]
      .filter(([, ids]) => ids.size > 1)
      .map(([key, ids]) => `${key}: ${[...ids]}`);
    // On failure, the operator actions on the first re-created child's tree say how.
    const tree = new Set<string>();
    if (recreated.length > 0) {
      const parent = recreated[0].split(':')[0];
      tree.add(parent);
      for (const [key, ids] of childIds) if (key.startsWith(`${parent}:`)) for (const id of ids) tree.add(id);
    }
    const story = history.filter((line) => tree.has(line.split(' ')[0])).join('\n');
    assert.deepEqual(recreated, [], `a (parent, step) had more than one child:\n${story}`);
    assert.ok(childIds.size >= PARENTS, `children ran (${childIds.size})`);
    assert.ok(actions.done > 0 && actions.refused > 0, JSON.stringify(actions));
    assert.deepEqual(await findInconsistencies(sqlOf(tm), tm.schema), []);
  });
});
