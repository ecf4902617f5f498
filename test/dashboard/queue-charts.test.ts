import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tidemark } from '../../src/index.js';
import { get, RAW_MARKUP, XSS } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver } from '../support/each-driver.js';

const MIN = 60;
const HOUR = 3600;
const DAY = 86_400;

/** Jobs finished at a known time: `ago` seconds before now, after waiting `wait` seconds to start. */
interface Finished {
  status: 'completed' | 'failed' | 'cancelled';
  ago: number;
  wait?: number;
}

async function seedFinished(tm: Tidemark, queue: string, jobs: Finished[]): Promise<void> {
  const added = await tm.addJobs(jobs.map((_, i) => ({ queue, data: { i } })));
  await rawQuery(
    tm,
    `update "${tm.schema}".jobs j
        set status = v.status,
            run_at = now() - (v.ago + 1 + v.wait) * interval '1 second',
            started_at = case when v.status = 'cancelled' then null
                              else now() - (v.ago + 1) * interval '1 second' end,
            finished_at = now() - v.ago * interval '1 second'
       from unnest($1::bigint[], $2::text[], $3::float8[], $4::float8[]) as v(id, status, ago, wait)
      where j.id = v.id`,
    [added.map((a) => a.id), jobs.map((j) => j.status), jobs.map((j) => j.ago), jobs.map((j) => j.wait ?? 0)],
  );
}

/** The count of each bucket of one chart, by how many buckets ago it is. */
function bars(body: string, chart: string): Map<number, number> {
  const svg = body.match(new RegExp(`<svg[^>]*data-chart="${chart}"[\\s\\S]*?</svg>`));
  assert.ok(svg, `the page has the ${chart} chart`);
  const counts = new Map<number, number>();
  for (const m of svg[0].matchAll(/data-ago="(\d+)" data-n="(\d+)"/g)) counts.set(Number(m[1]), Number(m[2]));
  return counts;
}

/** Buckets with something in them, as { ago: n }. */
function nonZero(counts: Map<number, number>): Record<number, number> {
  return Object.fromEntries([...counts].filter(([, n]) => n > 0));
}

function waitMarks(body: string): Map<number, { p50: number; p95: number }> {
  const svg = body.match(/<svg[^>]*data-chart="wait"[\s\S]*?<\/svg>/);
  assert.ok(svg, 'the page has the wait chart');
  const marks = new Map<number, { p50: number; p95: number }>();
  for (const m of svg[0].matchAll(/data-ago="(\d+)" data-p50-ms="(\d+)" data-p95-ms="(\d+)"/g))
    marks.set(Number(m[1]), { p50: Number(m[2]), p95: Number(m[3]) });
  return marks;
}

describeOnOneDriver('dashboard queue page charts', ({ open }) => {
  test('completed, failed and wait per bucket over 1 h, 24 h and 7 d, from the jobs still stored', async () => {
    const tm = await open();
    tm.createQueue({ name: 'charts' });
    tm.createQueue({ name: 'other' });
    await tm.listQueues();
    await seedFinished(tm, 'charts', [
      ...Array.from({ length: 3 }, () => ({ status: 'completed' as const, ago: 20 })),
      { status: 'cancelled', ago: 20 },
      { status: 'completed', ago: 150 },
      { status: 'completed', ago: 150 },
      { status: 'failed', ago: 150 },
      // A known distribution of waits in one bucket: 1 s … 20 s.
      ...Array.from({ length: 20 }, (_, i) => ({
        status: 'completed' as const,
        ago: 10.5 * MIN,
        wait: i + 1,
      })),
      { status: 'failed', ago: 30.5 * MIN },
      ...Array.from({ length: 4 }, () => ({ status: 'completed' as const, ago: 5 * HOUR })),
      { status: 'completed', ago: 3 * DAY },
      { status: 'completed', ago: 3 * DAY },
      { status: 'completed', ago: 8 * DAY },
    ]);
    await seedFinished(tm, 'other', [{ status: 'completed', ago: 20 }]);
    const dashboard = await tm.dashboard({ port: 0 });

    const overview = await get(dashboard.url);
    assert.match(
      overview.body,
      /<a href="\/queues\/charts">charts<\/a>/,
      'the overview links each queue to its page',
    );

    const hour = await get(`${dashboard.url}queues/charts`);
    assert.equal(hour.status, 200, hour.body.slice(0, 300));
    assert.equal(bars(hour.body, 'completed').size, 60);
    assert.deepEqual(nonZero(bars(hour.body, 'completed')), { 0: 3, 2: 2, 10: 20 });
    assert.deepEqual(nonZero(bars(hour.body, 'failed')), { 2: 1, 30: 1 });
    assert.match(hour.body, /Completed per minute, the last hour: 25</);
    assert.match(hour.body, /Failed per minute, the last hour: 2</);
    const waits = waitMarks(hour.body);
    // percentile_cont over 1..20 s: p50 = 10.5 s, p95 = 19 + 0.05 = 19.05 s.
    assert.deepEqual(waits.get(10), { p50: 10_500, p95: 19_050 });
    assert.deepEqual(waits.get(0), { p50: 0, p95: 0 }, 'the cancelled job, never started, has no wait');
    assert.equal(waits.has(1), false, 'an empty bucket draws no wait');
    // The whole hour: seven waits of 0 and 1..20 s.
    assert.match(hour.body, /data-total-p50-ms="7000">7\.0 s</);
    assert.match(hour.body, /data-total-p95-ms="18700">18\.7 s</);
    assert.match(hour.body, /10 min to 11 min ago: p50 10\.5 s, p95 19\.1 s/);
    assert.match(hour.body, /retention deletes finished jobs/);

    const day = await get(`${dashboard.url}queues/charts?window=24h`);
    assert.equal(day.status, 200);
    assert.equal(bars(day.body, 'completed').size, 96);
    assert.deepEqual(nonZero(bars(day.body, 'completed')), { 0: 25, 20: 4 });
    assert.deepEqual(nonZero(bars(day.body, 'failed')), { 0: 1, 2: 1 });
    assert.match(day.body, /class="current" data-window="24h"/);

    const week = await get(`${dashboard.url}queues/charts?window=7d`);
    assert.equal(week.status, 200);
    assert.equal(bars(week.body, 'failed').size, 84);
    assert.deepEqual(nonZero(bars(week.body, 'completed')), { 0: 25, 2: 4, 36: 2 });
    assert.deepEqual(nonZero(bars(week.body, 'failed')), { 0: 2 });
    assert.match(week.body, /Completed per 2 hours, the last 7 days: 31</);
  });

  test('an unknown queue is 404, a bad window is named (400), and a hostile queue name is escaped', async () => {
    const tm = await open();
    tm.createQueue({ name: 'charts' });
    tm.createQueue({ name: XSS.queue });
    await tm.listQueues();
    const dashboard = await tm.dashboard({ port: 0 });

    const missing = await get(`${dashboard.url}queues/nope`);
    assert.equal(missing.status, 404);
    assert.match(missing.body, /nope/);
    assert.equal((await get(`${dashboard.url}queues/%E0%A4%A`)).status, 404, 'a broken escape is not found');

    for (const bad of ['2h', '', '1H', '7d%20']) {
      const page = await get(`${dashboard.url}queues/charts?window=${bad}x`);
      assert.equal(page.status, 400, bad);
      assert.match(
        page.body,
        /invalid option &#39;window&#39;: expected &#39;1h&#39;, &#39;24h&#39; or &#39;7d&#39;/,
        bad,
      );
    }

    const hostile = await get(`${dashboard.url}queues/${encodeURIComponent(XSS.queue)}?window=7d`);
    assert.equal(hostile.status, 200);
    assert.ok(hostile.body.includes('Queue q&lt;script&gt;window.__xss=&quot;queue&quot;&lt;/script&gt;'));
    for (const raw of RAW_MARKUP) assert.doesNotMatch(hostile.body, raw);
  });
});
