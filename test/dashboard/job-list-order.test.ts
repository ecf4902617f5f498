import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { ANY_JOB } from '../../src/storage/sql/job-filter.js';
import { listJobsByFinished, listJobsByFinishedInQueue } from '../../src/storage/sql/job-list.js';
import { get } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver, describePostgresOnly } from '../support/each-driver.js';

/** The ids of a job list page, top to bottom, and its "Earlier" link. */
function listed(page: string): { ids: string[]; next: string | null } {
  const ids = [...page.matchAll(/<tr data-job-id="(\d+)">/g)].map((m) => m[1]);
  const next = page.match(/<a href="([^"]+)" rel="next">/)?.[1]?.replaceAll('&amp;', '&') ?? null;
  return { ids, next };
}

describeOnOneDriver(
  'dashboard job list: run at, order by finishing time, go to a job by id',
  ({ openOnClock }) => {
    test('the finished order pages by (finished_at, id) without a gap or a repeat across ties', async () => {
      const tm = await openOnClock({ logger: silentLogger });
      tm.createQueue({ name: 'a' });
      tm.createQueue({ name: 'b' });
      const added = await tm.addJobs(
        Array.from({ length: 130 }, (_, i) => ({ queue: i % 2 === 0 ? 'a' : 'b', data: { i } })),
      );
      const ids = added.map((a) => a.id);
      // Finished in groups of 7 at the same microsecond, in an order unlike the ids'; 10 not finished.
      await rawQuery(
        tm,
        `update "${tm.schema}".jobs j
          set status = 'completed', started_at = now() - interval '1 hour',
              finished_at = now() - interval '1 hour' + ((v.n * 37) % 130 / 7) * interval '1 second' + interval '0.000001 second'
         from unnest($1::bigint[]) with ordinality as v(id, n)
        where j.id = v.id and v.n <= 120`,
        [ids],
      );
      const expected = (
        await rawQuery<{ id: string }>(
          tm,
          `select j.id::text as id from "${tm.schema}".jobs j where j.finished_at is not null order by j.finished_at desc, j.id desc`,
        )
      ).map((r) => r.id);
      assert.equal(expected.length, 120);
      const { url } = await tm.dashboard({ port: 0 });
      const seen: string[] = [];
      let next: string | null = `${url}jobs?sort=finished`;
      let pages = 0;
      while (next !== null) {
        const page = await get(next.startsWith('/') ? `${url}${next.slice(1)}` : next);
        assert.equal(page.status, 200, page.body.slice(0, 400));
        const found = listed(page.body);
        seen.push(...found.ids);
        next = found.next;
        pages++;
      }
      assert.equal(pages, 3);
      assert.deepEqual(seen, expected, 'every finished job once, latest finished first, ties by id');

      const inQueue = listed((await get(`${url}jobs?sort=finished&queue=a`)).body);
      assert.deepEqual(
        inQueue.ids,
        expected.filter((id) => Number(id) % 2 === Number(ids[0]) % 2).slice(0, 50),
      );

      // The run-at column: a job delayed by an hour says so.
      const later = await tm.addJob({ queue: 'a', data: {}, delaySeconds: 3600 });
      const list = (await get(`${url}jobs`)).body;
      assert.match(list, /<th>run at<\/th>/);
      const row = list.match(new RegExp(`<tr data-job-id="${later.id}">([\\s\\S]*?)</tr>`))?.[1] ?? '';
      assert.match(row, /data-run-at="[^"]+">in 60 min<\/td>/);

      // A bad order or cursor is named, and nothing is searched.
      const bad = await get(`${url}jobs?sort=run`);
      assert.equal(bad.status, 400);
      assert.match(bad.body, /&#39;sort&#39; must be one of created, finished, got &#39;run&#39;/);
      assert.equal((await get(`${url}jobs?sort=finished&cursor=x`)).status, 400);
      assert.equal((await get(`${url}jobs?sort=finished&q=zz`)).status, 400, 'no text search in this order');
    });

    test('the id box goes to the job, or says no job has that id', async () => {
      const tm = await openOnClock({ logger: silentLogger });
      tm.createQueue({ name: 'a' });
      const job = await tm.addJob({ queue: 'a', data: {} });
      const { url } = await tm.dashboard({ port: 0 });
      assert.match((await get(`${url}jobs`)).body, /<form method="get" action="\/jobs\/find"/);
      const found = await get(`${url}jobs/find?id=${job.id}`);
      assert.equal(found.status, 303);
      assert.equal(found.res.headers.get('location'), `/jobs/${job.id}`);
      const missing = await get(`${url}jobs/find?id=${Number(job.id) + 1000}`);
      assert.equal(missing.status, 404);
      assert.match(missing.body, new RegExp(`No job has the id ${Number(job.id) + 1000}`));
      assert.match(missing.body, /id="job-find"/, 'the box again');
      const bad = await get(`${url}jobs/find?id=${encodeURIComponent('<b>1</b>')}`);
      assert.equal(bad.status, 400);
      assert.match(bad.body, /must be a job id \(digits\), got &#39;&lt;b&gt;1&lt;\/b&gt;&#39;/);
    });
  },
);

describePostgresOnly('dashboard job list: the finished order reads an index', ({ open }) => {
  test('by jobs_finished_idx, and jobs_queue_finished_idx with a queue, never a scan of jobs', async () => {
    const tm = await open({ logger: silentLogger });
    const s = `"${tm.schema}"`;
    await rawQuery(
      tm,
      `insert into ${s}.jobs (queue, status, started_at, finished_at, created_at)
       select 'q' || (g % 10), 'completed', now() - (100000 - g) * interval '1 second',
              now() - (100000 - g) * interval '1 second', now() - (100000 - g) * interval '1 second'
         from generate_series(1, 100000) g`,
    );
    await rawQuery(tm, `analyze ${s}.jobs`);
    const window = { floor: '1', before: '9223372036854775807', limit: 51, after_us: null, after_id: null };
    for (const [query, params, index] of [
      [listJobsByFinished, { ...ANY_JOB, ...window }, /jobs_finished_idx/],
      [listJobsByFinishedInQueue, { ...ANY_JOB, ...window, queue: 'q3' }, /jobs_queue_finished_idx/],
      [
        listJobsByFinished,
        { ...ANY_JOB, ...window, after_us: '1700000000000000', after_id: '100' },
        /jobs_finished_idx/,
      ],
    ] as const) {
      const rows = await rawQuery<{ 'QUERY PLAN': string }>(
        tm,
        `explain ${query.text(tm.schema)}`,
        query.values(params),
      );
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      assert.match(plan, index, plan);
      assert.doesNotMatch(plan, /Seq Scan on jobs/, plan);
    }
  });
});
