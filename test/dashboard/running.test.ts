import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { get } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('dashboard: running now', ({ openOnClock }) => {
  test('lists the running jobs longest first, with their worker, elapsed time and lock, and marks a stalled one', async () => {
    // On the test clock the database's now() stands still: the elapsed times are exact.
    const tm = await openOnClock({ logger: silentLogger });
    tm.createQueue({ name: 'long' });
    const first = await tm.addJob({ queue: 'long', data: {} });
    const second = await tm.addJob({ queue: 'long', data: {} });
    await tm.addJob({ queue: 'long', data: {} });
    // As claimed by worker-a (no worker runs here, so no tick recovers the stalled one): the
    // first ten minutes ago, its lock lapsed a minute ago; the second a minute ago, its lock held.
    const s = `"${tm.schema}"`;
    const claim = (id: string, startedAgo: string, lockIn: string) =>
      rawQuery(
        tm,
        `update ${s}.jobs set status = 'active', attempts = 1, locked_by = 'worker-a', lock_token = gen_random_uuid(),
                started_at = ${s}.tidemark_test_now() - $2::interval, locked_until = ${s}.tidemark_test_now() + $3::interval
          where id = $1::bigint`,
        [id, startedAgo, lockIn],
      );
    await claim(first.id, '10 minutes', '-1 minute');
    await claim(second.id, '1 minute', '1 minute');
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}running`)).body;
    const table = page.slice(page.indexOf('<table class="running"'), page.indexOf('</tbody>'));
    assert.match(page, /2 running, <strong>1 stalled<\/strong>/);
    const rows = [...table.matchAll(/<tr data-job="(\d+)">/g)].map((m) => m[1]);
    assert.deepEqual(rows, [first.id, second.id], 'longest running first; a pending job is not listed');
    const [firstRow, secondRow] = table.split(`data-job="${second.id}"`);
    assert.match(firstRow, /<td class="num">10 min<\/td>/);
    assert.match(firstRow, /worker-a/);
    assert.match(firstRow, /status-failed">stalled/);
    assert.match(secondRow, /<td class="num">60 s<\/td>/);
    assert.doesNotMatch(secondRow, /stalled/);
    assert.match(page, /href="\/running"/, 'in the navigation');
  });
});
