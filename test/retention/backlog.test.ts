import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { JobStatus, silentLogger, type Tidemark } from '../../src/index.js';
import { inDeletionBatch } from '../../src/storage/retention-gate.js';
import type { Query } from '../../src/storage/sql/define-query.js';
import { CURSOR_START } from '../../src/storage/sql/retention-batch.js';
import { purgeFinished } from '../../src/storage/sql/retention-purge.js';
import * as sql from '../../src/storage/sql/retention-sweep.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { deferred, fastWorker } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A backlog that lands at once (an import, a policy applied to history) is swept before
 * anything has analysed the table. The planner then has no statistics, and the batch plans
 * must not depend on them; on PGlite, where each statement runs on the application's thread,
 * the sweep must also leave the event loop its turns, or heartbeats stop and running jobs
 * are recovered as stalled.
 */
describeEachDriver('a sweep of a backlog the planner has no statistics for', ({ kind, open }) => {
  /** `rows` finished single-job trees, all due, in one statement; nothing analyses the table. */
  async function backlog(tm: Tidemark, rows: number): Promise<void> {
    const s = `"${tm.schema}"`;
    if (kind === 'pg') await rawQuery(tm, `alter table ${s}.jobs set (autovacuum_enabled = false)`);
    await rawQuery(
      tm,
      `insert into ${s}.jobs (queue, status, data, finished_at, purge_after, retention)
         select 'backlog', 'completed', jsonb_build_object('n', g), now() - interval '40 days',
                now() - interval '10 days' + g * interval '1 millisecond', '{"completed": 2592000}'
           from generate_series(1, $1::int) g`,
      [rows],
    );
  }

  /** The plan of a batch statement, in a transaction opened as the batches' own are. */
  async function plan<P extends Record<string, unknown>>(
    tm: Tidemark,
    query: Query<P, unknown>,
    params: P,
  ): Promise<string> {
    const storage = engineOf(tm).storage;
    const rows = await inDeletionBatch(runnerOf(storage), (tx) =>
      tx.query<{ 'QUERY PLAN': string }>(
        `explain (costs off) ${query.text(tm.schema)}`,
        query.values(params),
      ),
    );
    return rows.rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  test('the sweep and purge batches walk the index from their cursor and delete by primary key, on tables never analysed', async () => {
    const tm = await open({ logger: silentLogger });
    await backlog(tm, 20_000);
    const [stats] = await rawQuery<{ analysed: boolean }>(
      tm,
      `select exists (select 1 from pg_stats where schemaname = $1 and tablename = 'jobs') as analysed`,
      [tm.schema],
    );
    assert.equal(stats.analysed, false, 'the table has no statistics');

    const sweep = await plan(tm, sql.deleteDueTrees(1_000), { ...CURSOR_START });
    const purge = await plan(tm, purgeFinished(1_000), {
      queue: null,
      statuses: ['completed'],
      older_than_seconds: 0,
      ...CURSOR_START,
    });
    for (const [text, index, key] of [
      [sweep, 'jobs_purge_after_idx', 'purge_after'],
      [purge, 'jobs_finished_idx', 'finished_at'],
    ] as const) {
      // One ordered walk of the index from the cursor, stopping at the limit, and no sort.
      assert.match(text, new RegExp(`Index (Only )?Scan using ${index} on jobs r\\b`), text);
      assert.doesNotMatch(text, new RegExp(`Sort Key: r\\.${key}`), text);
      // Every other read of jobs is an index probe by id or by tree: no second read of the
      // due range (the old plan joined it to the batch in a nested loop, so that each batch
      // cost the whole backlog), no sequential or bitmap scan.
      const reads = text.split('\n').filter((line) => /Scan\b.* on jobs \w+/.test(line));
      const walks = reads.filter((line) => line.includes(index));
      assert.equal(walks.length, 1, text);
      for (const line of reads.filter((l) => !l.includes(index))) {
        assert.match(line, /Index (Only )?Scan using jobs_(pkey|root_idx) on jobs \w+$/, text);
      }
      assert.match(text, /Delete on jobs j\n[\s\S]*?Index Scan using jobs_pkey on jobs j\n/, text);
    }
  });

  test('running jobs keep their locks through a sweep of 30,000 rows that landed at once', async () => {
    const tm = await open({ logger: silentLogger });
    const release = deferred();
    tm.createQueue({
      name: 'work',
      maxAttempts: 1,
      handler: async () => {
        await release.promise;
        return 'done';
      },
    });
    const worker = fastWorker(tm, { concurrency: 5, lockSeconds: 1 });
    await backlog(tm, 30_000);
    await worker.start();
    const ids = (await tm.addJobs(Array.from({ length: 5 }, () => ({ queue: 'work', data: {} })))).map(
      (job) => job.id,
    );
    await waitFor('all five jobs running', () => worker.activeCount === 5);

    const swept = await tm.sweep();
    assert.equal(swept.error, undefined);
    assert.equal(swept.jobs, 30_000);

    release.resolve();
    const finished = await waitFor('the five jobs to finish', async () => {
      const jobs = await Promise.all(ids.map((id) => tm.getJob(id)));
      return jobs.every((job) => job?.status === 'completed' || job?.status === 'failed') ? jobs : null;
    });
    await worker.stop();
    assert.deepEqual(
      finished.map((job) => [job?.status, job?.error?.name ?? null]),
      ids.map(() => [JobStatus.COMPLETED, null]),
    );
  });
});
