import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ArchivedJob, ArchiveHook, Queryable } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob, insertTree } from '../support/factory.js';
import { countRows } from '../support/jobs.js';
import { captureLogger } from './support/capture-logger.js';

const HOUR = 3_600;

/**
 * The docs/retention.md example: copy each job about to be deleted into an application
 * table, in the deleting transaction, so the copy and the delete commit together.
 */
function copyInto(table: string): ArchiveHook {
  return async (batch: ArchivedJob[], tx: Queryable) => {
    for (const { job, checkpoints, signals } of batch) {
      await tx.query(
        `insert into ${table} (job_id, queue, status, data, output, error, finished_at, checkpoints, signals)
         values ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8::jsonb, $9::jsonb)`,
        [
          job.id,
          job.queue,
          job.status,
          JSON.stringify(job.data),
          JSON.stringify(job.output),
          JSON.stringify(job.error),
          job.finishedAt,
          JSON.stringify(checkpoints),
          JSON.stringify(signals),
        ],
      );
    }
  };
}

async function createHistoryTable(tm: { schema: string }, run: (sql: string) => Promise<unknown>) {
  const table = `"${tm.schema}".job_archive`;
  await run(
    `create table ${table} (job_id bigint primary key, queue text, status text, data jsonb, output jsonb,
       error jsonb, finished_at timestamptz, checkpoints jsonb, signals jsonb)`,
  );
  return table;
}

describeEachDriver('archive before delete', ({ open }) => {
  test('the hook gets each batch (jobs with checkpoints and signals) inside the deleting transaction', async () => {
    let hook: ArchiveHook = async () => {};
    const tm = await open({ archive: (batch, tx) => hook(batch, tx) });
    const table = await createHistoryTable(tm, (sql) => rawQuery(tm, sql));
    const copy = copyInto(table);
    const batches: string[][] = [];
    hook = async (batch, tx) => {
      batches.push(batch.map((a) => a.job.id));
      // Inside the delete's transaction the rows are still there (and locked).
      const ids = batch.map((a) => a.job.id);
      const { rows } = await tx.query<{ n: number }>(
        `select count(*)::int as n from "${tm.schema}".jobs where id = any($1::bigint[])`,
        [ids],
      );
      assert.equal(rows[0].n, ids.length);
      await copy(batch, tx);
    };
    const tree = await insertTree(
      tm,
      {
        status: 'completed',
        purgeAfter: -HOUR,
        data: { order: 7 },
        checkpoints: ['charge'],
        signals: [{ name: 'approve', consumedAt: -HOUR }],
      },
      [{ status: 'failed', purgeAfter: -HOUR, checkpoints: ['a', 'b'] }],
    );
    const singles = [
      await insertJob(tm, { status: 'completed', purgeAfter: -HOUR + 1 }),
      await insertJob(tm, { status: 'cancelled', purgeAfter: -HOUR + 2 }),
    ];
    const kept = await insertJob(tm, { status: 'completed', purgeAfter: HOUR });
    const result = await tm.sweep({ batchSize: 2 });
    assert.equal(result.error, undefined);
    assert.equal(result.jobs, 4);
    // A batch reads two index entries: the root and its child, then the two single jobs.
    assert.deepEqual(batches, [tree, singles]);
    assert.deepEqual(await existingJobs(tm), [kept]);
    const history = await rawQuery<{
      job_id: string;
      data: unknown;
      checkpoints: { name: string }[];
      signals: { name: string; state: string }[];
    }>(tm, `select job_id::text as job_id, data, checkpoints, signals from ${table} order by job_id`);
    assert.deepEqual(
      history.map((h) => h.job_id),
      [...tree, ...singles],
    );
    assert.deepEqual(history[0].data, { order: 7 });
    assert.deepEqual(
      history[0].checkpoints.map((c) => c.name),
      ['charge'],
    );
    assert.deepEqual(
      history[0].signals.map((s) => [s.name, s.state]),
      [['approve', 'consumed']],
    );
    assert.deepEqual(history[1].checkpoints.map((c) => c.name).sort(), ['a', 'b']);
  });

  test('a throwing hook keeps its whole batch (and what it wrote); the sweep reports the error', async () => {
    let calls = 0;
    let table = '';
    const { logger, records } = captureLogger();
    const tm = await open({
      logger,
      archive: async (batch, tx) => {
        calls++;
        await copyInto(table)(batch, tx);
        if (calls === 2) throw new Error('archive store unavailable');
      },
    });
    table = await createHistoryTable(tm, (sql) => rawQuery(tm, sql));
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(await insertJob(tm, { status: 'completed', purgeAfter: -HOUR - 10 + i }));
    const events: { error?: string; jobs: number }[] = [];
    tm.on('sweep:finished', (e) => events.push(e));
    const result = await tm.sweep({ batchSize: 2 });
    assert.equal(result.error, 'archive store unavailable');
    assert.equal(result.jobs, 2, 'the first batch committed before the second failed');
    assert.deepEqual(await existingJobs(tm), ids.slice(2));
    assert.equal(await countRows(tm, 'job_archive'), 2, 'the failed batch wrote nothing either');
    assert.equal(events[0].error, 'archive store unavailable');
    const [record] = await tm.listSweeps(1);
    assert.equal(record.error, 'archive store unavailable');
    assert.equal(record.jobs, 2);
    assert.ok(records.some((r) => r.level === 'error' && /retention sweep failed/.test(r.message)));
    // The next pass, with the store back, takes the rest.
    const again = await tm.sweep({ batchSize: 2 });
    assert.equal(again.error, undefined);
    assert.equal(again.jobs, 3);
    assert.equal(await countRows(tm, 'job_archive'), 5);
  });

  test('a hook that calls the engine instead of using tx fails its batch rather than hanging', async () => {
    const tm = await open({
      logger: captureLogger().logger,
      archive: async () => {
        await tm.getJob('1');
      },
    });
    const id = await insertJob(tm, { status: 'completed', purgeAfter: -HOUR });
    const result = await tm.sweep();
    if (tm.driverKind === 'pglite') {
      // One session: a call outside the transaction would wait for it forever; it is refused.
      assert.match(String(result.error), /transaction/);
      assert.deepEqual(await existingJobs(tm), [id]);
    } else {
      assert.equal(result.error, undefined);
    }
  });
});
