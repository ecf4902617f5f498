import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { ANY_JOB } from '../../src/storage/sql/job-filter.js';
import { QUERY_COUNTS, QUERY_PAGES, type QueryWindow } from '../../src/storage/sql/job-query.js';
import { queueChanges } from '../../src/storage/sql/queue-changes.js';
import { rawQuery } from '../support/databases.js';
import { describePostgresOnly } from '../support/each-driver.js';

/**
 * The job list's statements on a table of 1,000,000 jobs: each filter docs/jobs.md calls fast
 * is read through its index, never by a sequential scan of jobs. The plans are printed.
 */
describePostgresOnly('tm.listJobs plans at a million jobs', ({ open }) => {
  test('every promised filter walks an index, for a page and for a count', async () => {
    const tm = await open({ logger: silentLogger });
    const s = `"${tm.schema}"`;
    // Ten queues, one job in a hundred failed, one in twenty keyed, one in a hundred tagged,
    // created a second apart. Finished without a finishing time, so that only the indexes
    // these statements read are written.
    await rawQuery(
      tm,
      `insert into ${s}.jobs (queue, status, key, tags, created_at)
       select 'q' || (g % 10), case when g % 100 = 0 then 'failed' else 'completed' end,
              case when g % 20 = 0 then 'tenant:' || (g % 500) end,
              case when g % 100 = 7 then array['customer:' || (g % 1000)] end,
              now() - (1000000 - g) * interval '1 second'
         from generate_series(1, 1000000) g`,
    );
    await rawQuery(tm, `analyze ${s}.jobs`);
    const window = (fields: Partial<QueryWindow>): QueryWindow => ({
      ...ANY_JOB,
      floor: '1',
      ceiling: '1000001',
      limit: 101,
      queues: [],
      statuses: [],
      ...fields,
    });
    const cases: [string, keyof typeof QUERY_PAGES, Partial<QueryWindow>, RegExp][] = [
      ['no filter', 'all', {}, /jobs_pkey/],
      ['key', 'key', { key: 'tenant:40' }, /jobs_key_idx/],
      ['tags', 'tags', { tags: ['customer:7'] }, /jobs_tags_idx/],
      [
        'queue',
        'pairs',
        { queue: 'q3', queues: ['q3'], statuses: ['completed', 'failed'] },
        /jobs_queue_status_idx/,
      ],
      [
        'status, every queue',
        'pairs',
        { status: 'failed', queues: Array.from({ length: 10 }, (_, i) => `q${i}`), statuses: ['failed'] },
        /jobs_queue_status_idx/,
      ],
      ['a time range', 'all', { floor: '900000', ceiling: '950000' }, /jobs_pkey/],
    ];
    const plans: string[] = [];
    for (const [what, path, fields, index] of cases) {
      for (const [kind, query] of [
        ['page', QUERY_PAGES[path].desc],
        ['count', QUERY_COUNTS[path]],
      ] as const) {
        const rows = await rawQuery<{ 'QUERY PLAN': string }>(
          tm,
          `explain ${query.text(tm.schema)}`,
          query.values(window(fields)),
        );
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        plans.push(`-- ${what}, ${kind}\n${plan}`);
        assert.match(plan, index, `${what} (${kind}) reads ${index}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on jobs/, `${what} (${kind}) scans no table:\n${plan}`);
      }
    }
    // A queue's stream (tm.subscribe({ queue })): its four walks and the read by id.
    const rows = await rawQuery<{ 'QUERY PLAN': string }>(
      tm,
      `explain ${queueChanges.text(tm.schema)}`,
      queueChanges.values({
        queue: 'q3',
        after_id: '999000',
        finished_after: '2026-01-01T00:00:00.000000Z',
        finished_after_id: '0',
        known: ['5', '6'],
        limit: 500,
      }),
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    plans.push(`-- subscribe({ queue })\n${plan}`);
    assert.doesNotMatch(plan, /Seq Scan on jobs/, `a queue's changes scan no table:\n${plan}`);
    console.log(`listJobs plans at 1,000,000 jobs:\n${plans.join('\n')}`);
  });
});
