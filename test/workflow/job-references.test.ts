import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { count, startWorker, table, waitForStatus } from './fixtures/helpers.js';

describeEachDriver('tables that reference jobs', ({ open }) => {
  test('every foreign key to jobs cascades on delete and leads an index', async () => {
    const tm = await open({ logger: silentLogger });
    const refs = await rawQuery<{
      tbl: string;
      col: string;
      on_delete: string;
      indexed: boolean;
      cols: number;
    }>(
      tm,
      `select c.conrelid::regclass::text as tbl, a.attname as col, c.confdeltype::text as on_delete,
              array_length(c.conkey, 1) as cols,
              exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1]) as indexed
         from pg_constraint c
         join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
        where c.contype = 'f' and c.confrelid = $1::regclass
        order by 1, 2`,
      [table(tm, 'jobs')],
    );
    const names = refs.map((r) => `${r.tbl.split('.').pop()}.${r.col}`).sort();
    for (const expected of [
      'checkpoints.job_id',
      'jobs.parent_id',
      'schedule_fires.job_id',
      'signals.job_id',
      'unique_locks.job_id',
    ]) {
      assert.ok(names.includes(expected), `${expected} references jobs (found ${names.join(', ')})`);
    }
    for (const ref of refs) {
      assert.equal(ref.on_delete, 'c', `${ref.tbl}.${ref.col} is ON DELETE CASCADE`);
      assert.equal(ref.cols, 1);
      assert.equal(ref.indexed, true, `${ref.tbl}.${ref.col} leads an index`);
    }
  });

  test('deleting a job deletes its checkpoints, signals, schedule fires and unique locks with it', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      signals: { go: 2 },
      handler: async (_job, ctx) => {
        await ctx.step('a', () => 1);
        return ctx.waitForSignal('go');
      },
    });
    const { id } = await tm.addJob({ queue: 'wf', idempotencyKey: { key: 'k', ttlSeconds: 3600 } });
    await rawQuery(
      tm,
      `insert into ${table(tm, 'schedule_fires')} (schedule_name, fire_at, job_id) values ('s', now(), $1)`,
      [id],
    );
    await tm.signal(id, 'go', 1);
    await tm.signal(id, 'go', 2);
    await startWorker(tm);
    await waitForStatus(tm, id, 'completed');
    for (const t of ['checkpoints', 'signals', 'schedule_fires', 'unique_locks']) {
      assert.ok((await count(tm, t, 'job_id = $1', [id])) > 0, `${t} has rows for the job`);
    }
    await tm.deleteJob(id);
    for (const t of ['checkpoints', 'signals', 'schedule_fires', 'unique_locks']) {
      assert.equal(await count(tm, t, 'job_id = $1', [id]), 0, `${t} rows went with the job`);
    }
  });
});
