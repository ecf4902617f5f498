import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listJobs, PAGE_SIZE, parseFilter, SEARCH_WINDOW } from '../../src/admin/job-list.js';
import { COUNT_CAP } from '../../src/admin/status-count.js';
import { engineOf } from '../../src/engine-handle.js';
import type { Tidemark } from '../../src/index.js';
import { cappedStatusCounts } from '../../src/storage/sql/admin.js';
import { ANY_JOB } from '../../src/storage/sql/job-filter.js';
import { listJobsAll, listJobsByQueueStatus } from '../../src/storage/sql/job-list.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { get } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

/** Every page of a filter, following the "newer" cursor from a page to the newest. */
async function newerPages(tm: Tidemark, query: string, after: bigint): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: bigint | null = after;
  while (cursor !== null && pages.length < 100) {
    const params = new URLSearchParams(query);
    params.set('after', String(cursor));
    const page = await listJobs(engineOf(tm), parseFilter(params).filter);
    pages.push(page.rows.map((r) => r.id));
    cursor = page.newer;
  }
  return pages;
}

/** The job ids of a list page and its pager's links, as the browser would follow them. */
async function pageAt(url: string) {
  const { status, body } = await get(url);
  assert.equal(status, 200, body.slice(0, 300));
  const link = (rel: string) => {
    const target = new RegExp(`href="([^"]*)" rel="${rel}"`).exec(body)?.[1];
    return target === undefined ? null : new URL(target.replaceAll('&amp;', '&'), url).href;
  };
  const ids = [...body.matchAll(/data-job-id="(\d+)"/g)].map((m) => m[1]);
  return { ids, older: link('next'), newer: link('prev') };
}

/** Every page of a filter, following the "older" cursor to the end. */
async function allPages(tm: Tidemark, query: string): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: bigint | null = null;
  do {
    const params = new URLSearchParams(query);
    if (cursor !== null) params.set('before', String(cursor));
    const page = await listJobs(engineOf(tm), parseFilter(params).filter);
    pages.push(page.rows.map((r) => r.id));
    cursor = page.next;
  } while (cursor !== null && pages.length < 100);
  return pages;
}

const sql = (tm: Tidemark, text: string, params: unknown[] = []) =>
  runnerOf(engineOf(tm).storage).driver.query(text.replaceAll('$schema', `"${tm.schema}"`), params);

describeOnOneDriver('dashboard job list', ({ open }) => {
  test('keyset pages walk every job once, newest first, under each filter', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    tm.createQueue({ name: 'b' });
    const ids: { id: string; queue: string; cancelled: boolean }[] = [];
    for (let i = 0; i < 130; i++) {
      const queue = i % 3 === 0 ? 'b' : 'a';
      const { id } = await tm.addJob({ queue, data: { i, tag: i % 10 === 7 ? 'needle' : 'hay' } });
      ids.push({ id, queue, cancelled: i % 4 === 0 });
    }
    for (const job of ids) if (job.cancelled) await tm.cancelJob(job.id);
    const newestFirst = (list: typeof ids) => list.map((j) => j.id).sort((x, y) => Number(y) - Number(x));

    const all = await allPages(tm, '');
    assert.deepEqual(
      all.map((p) => p.length),
      [PAGE_SIZE, PAGE_SIZE, 30],
    );
    assert.deepEqual(all.flat(), newestFirst(ids));
    assert.deepEqual((await allPages(tm, 'queue=b')).flat(), newestFirst(ids.filter((j) => j.queue === 'b')));
    assert.deepEqual(
      (await allPages(tm, 'status=cancelled')).flat(),
      newestFirst(ids.filter((j) => j.cancelled)),
    );
    assert.deepEqual(
      (await allPages(tm, 'queue=a&status=pending')).flat(),
      newestFirst(ids.filter((j) => j.queue === 'a' && !j.cancelled)),
    );
    const needles = (await allPages(tm, 'q=NEEDLE')).flat();
    assert.deepEqual(
      needles,
      newestFirst(ids.filter((_, i) => i % 10 === 7)),
      'case-insensitive search in data',
    );
    assert.deepEqual(
      (await allPages(tm, `q=${encodeURIComponent('%')}`)).flat(),
      [],
      'LIKE wildcards are literal',
    );
    assert.deepEqual((await allPages(tm, 'queue=nope')).flat(), []);
  });

  test('a time range becomes an id range; rows outside it never show', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const added = await tm.addJobs(Array.from({ length: 40 }, (_, i) => ({ queue: 'q', data: { i } })));
    const ids = added.map((a) => a.id);
    // Jobs 0-9 three days old, 10-19 two days old, the rest now (ids stay in time order).
    await sql(
      tm,
      `update $schema.jobs set created_at = now() - interval '3 days' where id = any($1::bigint[])`,
      [ids.slice(0, 10)],
    );
    await sql(
      tm,
      `update $schema.jobs set created_at = now() - interval '2 days' where id = any($1::bigint[])`,
      [ids.slice(10, 20)],
    );
    const day = 86_400_000;
    const iso = (ms: number) => new Date(Date.now() - ms).toISOString().slice(0, 16);
    const middle = await allPages(tm, `from=${iso(2.5 * day)}&to=${iso(1.5 * day)}`);
    assert.deepEqual(middle.flat(), ids.slice(10, 20).reverse());
    const recent = await allPages(tm, 'since=3600');
    assert.deepEqual(recent.flat(), ids.slice(20).reverse());
    const old = await allPages(tm, `to=${iso(2.5 * day)}`);
    assert.deepEqual(old.flat(), ids.slice(0, 10).reverse());
  });

  test('a text search reads a bounded window of ids per page and offers to search further', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const old = await tm.addJob({ queue: 'q', data: { note: 'rare-term' } });
    // Leave a gap wider than the search window between the old job and the new ones.
    await sql(tm, `select setval(pg_get_serial_sequence('$schema.jobs', 'id'), $1::bigint)`, [
      String(BigInt(old.id) + SEARCH_WINDOW + 10n),
    ]);
    await tm.addJobs(Array.from({ length: 5 }, () => ({ queue: 'q', data: { note: 'common' } })));
    const first = await listJobs(engineOf(tm), parseFilter(new URLSearchParams('q=rare-term')).filter);
    assert.deepEqual(first.rows, []);
    assert.ok(first.searchedDownTo !== null && first.next === first.searchedDownTo);
    const second = await listJobs(
      engineOf(tm),
      parseFilter(new URLSearchParams(`q=rare-term&before=${first.next}`)).filter,
    );
    assert.deepEqual(
      second.rows.map((r) => r.id),
      [old.id],
    );
    assert.equal(second.next, null);
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs?q=rare-term`)).body;
    assert.match(page, /searched down to id \d+/);
    assert.ok(page.includes(`before=${first.next}`), 'the page links the next window');
  });

  test('paging older then newer returns to the same pages, newest first, keeping the filter', async () => {
    const tm = await open();
    tm.createQueue({ name: 'a' });
    tm.createQueue({ name: 'b' });
    await tm.addJobs(
      Array.from({ length: 170 }, (_, i) => ({ queue: i % 5 === 0 ? 'b' : 'a', data: { i } })),
    );
    for (const query of ['', 'queue=a', 'status=pending', 'queue=a&status=pending']) {
      const older = await allPages(tm, query);
      assert.ok(older.length >= 3, `${query}: ${older.length} pages`);
      // From the oldest page, "newer" walks back up through the same pages.
      const oldest = older[older.length - 1];
      const newer = await newerPages(tm, query, BigInt(oldest[0]));
      assert.deepEqual(newer, older.slice(0, -1).reverse(), query);
      for (const page of newer)
        assert.deepEqual(
          page,
          [...page].sort((x, y) => Number(y) - Number(x)),
        );
    }
    const { url } = await tm.dashboard({ port: 0 });
    const first = await pageAt(`${url}jobs?queue=a`);
    assert.equal(first.newer, null, 'the newest page offers no newer one');
    assert.ok(first.older);
    const second = await pageAt(first.older);
    assert.ok(second.ids.length > 0 && second.ids.every((id) => !first.ids.includes(id)));
    assert.ok(second.newer, 'an older page links the newer one');
    assert.match(second.newer, /queue=a/, 'the filter is kept');
    const back = await pageAt(second.newer);
    assert.deepEqual(back.ids, first.ids);
    assert.equal(back.newer, null);
    assert.equal(back.older, first.older);
  });

  test('a text search finds a word that is only in the error message or the error name', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const added = await tm.addJobs(Array.from({ length: 30 }, (_, i) => ({ queue: 'q', data: { i } })));
    const failed = added[7].id;
    await sql(
      tm,
      `update $schema.jobs set status = 'failed', finished_at = now(),
              error = '{"name":"GatewayRefusal","message":"upstream said xylophone","stack":"at stackonlyword"}'
        where id = $1::bigint`,
      [failed],
    );
    const search = async (q: string) =>
      (await listJobs(engineOf(tm), parseFilter(new URLSearchParams({ q })).filter)).rows.map((r) => r.id);
    assert.deepEqual(await search('XYLOPHONE'), [failed], 'in the message, case-insensitively');
    assert.deepEqual(await search('gatewayrefusal'), [failed], 'in the name');
    assert.deepEqual(await search('"i": 7'), [failed], 'still in the data');
    assert.deepEqual(await search('stackonlyword'), [], 'the stack is not searched');
    const byStatus = await listJobs(engineOf(tm), { q: 'xylophone', status: 'failed' });
    assert.deepEqual(
      byStatus.rows.map((r) => r.id),
      [failed],
    );
    const { url } = await tm.dashboard({ port: 0 });
    assert.deepEqual((await pageAt(`${url}jobs?q=xylophone`)).ids, [failed]);
  });

  test('bad filters are reported, not run', async () => {
    const tm = await open();
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}jobs?status=bogus&from=yesterday&before=9999999999999999999&since=-4`))
      .body;
    assert.match(page, /unknown status &#39;bogus&#39;/);
    assert.match(page, /&#39;from&#39; is not a date/);
    assert.match(page, /&#39;before&#39; must be a page cursor/);
    assert.match(page, /&#39;since&#39; must be a number of seconds/);
  });

  test('on a large table the list, count and filter statements read indexes, never the whole table', async () => {
    const tm = await open();
    tm.createQueue({ name: 'big' });
    tm.createQueue({ name: 'small' });
    await tm.listQueues();
    await sql(
      tm,
      `insert into $schema.jobs (queue, status, data, finished_at, created_at)
       select case when g % 50 = 0 then 'small' else 'big' end,
              case when g % 100 = 0 then 'failed' when g % 7 = 0 then 'pending' else 'completed' end,
              jsonb_build_object('n', g), now(), now() - (60000 - g) * interval '1 second'
         from generate_series(1, 60000) g`,
    );
    await sql(tm, 'analyze $schema.jobs');
    const explain = async (text: string, values: unknown[]) => {
      const { rows } = await sql(tm, `explain ${text}`, values);
      return rows.map((r) => Object.values(r as Record<string, string>)[0]).join('\n');
    };
    const common = {
      before: '9223372036854775807',
      floor: '1',
      ...ANY_JOB,
      limit: 51,
    };
    const plans = [
      await explain(listJobsAll.text(tm.schema), listJobsAll.values(common)),
      await explain(listJobsAll.text(tm.schema), listJobsAll.values({ ...common, before: '30000' })),
      await explain(
        listJobsByQueueStatus.text(tm.schema),
        listJobsByQueueStatus.values({ ...common, queues: ['big', 'small'], statuses: ['failed'] }),
      ),
      await explain(
        listJobsByQueueStatus.text(tm.schema),
        listJobsByQueueStatus.values({ ...common, queues: ['small'], statuses: ['pending', 'completed'] }),
      ),
      await explain(
        cappedStatusCounts.text(tm.schema),
        cappedStatusCounts.values({
          queues: ['big', 'small'],
          statuses: ['completed', 'failed', 'pending'],
          cap: COUNT_CAP + 1,
        }),
      ),
    ];
    for (const plan of plans) assert.doesNotMatch(plan, /Seq Scan on jobs/, plan);
    // And the pages answer with the right rows.
    const failed = await listJobs(engineOf(tm), { status: 'failed' });
    assert.equal(failed.rows.length, PAGE_SIZE);
    assert.ok(failed.rows.every((r) => r.status === 'failed'));
  });
});
