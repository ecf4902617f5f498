import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger } from '../../src/index.js';
import type { Runner } from '../../src/storage/runner.js';
import { defineQuery, type NoParams, type Query } from '../../src/storage/sql/define-query.js';
import type { JobRow } from '../../src/storage/sql/job-columns.js';
import { getJob, getStatuses } from '../../src/storage/sql/jobs.js';
import { recordScheduleFire } from '../../src/storage/sql/schedules.js';
import { countByQueueAndStatus } from '../../src/storage/sql/stats.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { describeEachDriver } from '../support/each-driver.js';

/*
 * The type checker's half of this file: `tsc --noEmit -p .` checks it, and every
 * `@ts-expect-error` below fails the check the day the error it expects goes away, that is,
 * the day a query's row type stops counting. Nothing here runs.
 */
export async function typeChecks(db: Runner): Promise<void> {
  // The rows are the query's declared Row: no type argument, no cast.
  const [job] = await db.run(getJob, { id: '1' });
  const row: JobRow | undefined = job;
  const id: string | undefined = job?.id;

  // @ts-expect-error a query's rows are not another query's: getStatuses returns { id, status }
  const notJobs: JobRow[] = await db.run(getStatuses, { ids: ['1'] });

  // @ts-expect-error an id is a bigint, so text on both drivers, never a number
  const numericId: number | undefined = job?.id;

  // @ts-expect-error a query cannot be run as if it returned another row type
  await db.run<{ id: string }, { id: number }>(getJob, { id: '1' });

  const jobQuery: Query<{ id: string }, JobRow> = getJob;
  // @ts-expect-error nor be passed where a query of another row type is wanted
  const statusQuery: Query<{ ids: string[] }, { id: string; status: string; extra: string }> = getStatuses;

  // @ts-expect-error the parameters are the query's too
  await db.run(getJob, { ids: ['1'] });

  // @ts-expect-error a query declares its row type where its SQL is: there is no default
  defineQuery<NoParams>('undeclared', 'select 1');

  void [row, id, notJobs, numericId, jobQuery, statusQuery];
}

/* The runtime half: the rows are what the types say, on each driver. */
describeEachDriver('query row types match what the drivers return', ({ open }) => {
  test('a job row: bigint ids as text, integers as numbers, timestamps as Dates, json parsed', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const added = await tm.addJob({ queue: 'q', data: { n: 1 } });
    const storage = engineOf(tm).storage;
    const [row] = await runnerOf(storage).run(getJob, { id: added.id });
    assert.equal(typeof row.id, 'string');
    assert.equal(row.id, added.id);
    assert.equal(typeof row.attempts, 'number');
    assert.equal(typeof row.max_attempts, 'number');
    assert.equal(typeof row.priority, 'number');
    assert.ok(row.created_at instanceof Date);
    assert.ok(row.run_at instanceof Date);
    assert.equal(row.parent_id, null);
    assert.deepEqual(row.data, { n: 1 });
    assert.equal(row.status, 'pending');
  });

  test('counts cast to int arrive as numbers; an uncast count(*) is bigint, so text', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await tm.addJob({ queue: 'q', data: {} });
    const storage = engineOf(tm).storage;
    const [count] = await runnerOf(storage).run(countByQueueAndStatus, { since: null });
    assert.equal(count.n, 1);
    const [fire] = await runnerOf(storage).run(recordScheduleFire, {
      name: 'no such schedule',
      fire_at: new Date(),
      manual: false,
      jobs: '[{"idx":0,"queue":"q","priority":0,"data":null,"policy":null}]',
      policies: '[]',
      channel: runnerOf(storage).channel,
      fallback_retention: '{}',
      default_max_attempts: 3,
    });
    assert.equal(fire.id, null);
    assert.equal(fire.advanced, '0');
    assert.equal(fire.n, '0');
  });
});
