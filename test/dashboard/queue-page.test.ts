import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver } from '../support/each-driver.js';

/** The text of one option of the queue page's options card. */
function option(page: string, name: string): string {
  const match = page.match(new RegExp(`<dd data-option="${name}">([\\s\\S]*?)</dd>`));
  assert.ok(match, `the page shows ${name}`);
  return match[1].replace(/<[^>]+>/g, '');
}

/** The figure of one count of the queue page. */
function figure(page: string, name: string): string {
  const match = page.match(new RegExp(`<li data-figure="${name}"><span class="n">([\\s\\S]*?)</span>`));
  assert.ok(match, `the page counts ${name}`);
  return match[1].replace(/<[^>]+>/g, '');
}

describeOnOneDriver('dashboard: the queue page', ({ openOnClock }) => {
  test('counts (ready, scheduled, latency, per status), stored options, pause and resume, execution time', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    await tm.defineLimiter('github', { limit: 5_000, periodSeconds: 3_600, burst: 100 });
    tm.createQueue({
      name: 'sync',
      maxAttempts: 7,
      backoff: { delaySeconds: 30, factor: 3, maxDelaySeconds: 600, jitter: false },
      timeoutSeconds: 90,
      globalConcurrency: 4,
      keys: { concurrency: { default: 2, tiers: { pro: 5 } } },
      limiters: [{ name: 'github' }],
      retention: { completed: 3_600 },
    });
    tm.createQueue({ name: 'plain' });
    await tm.addJob({ queue: 'sync', data: {}, key: 'tenant-1' });
    await tm.clock.advance(45);
    await tm.addJob({ queue: 'sync', data: {}, delaySeconds: 600, key: 'tenant-1' });
    // Finished jobs with known run times (1 s … 10 s), all in the current minute.
    const finished = await tm.addJobs(Array.from({ length: 10 }, (_, i) => ({ queue: 'sync', data: { i } })));
    await rawQuery(
      tm,
      `update "${tm.schema}".jobs j
          set status = 'completed', run_at = now() - interval '20 seconds',
              started_at = now() - (v.run + 1) * interval '1 second', finished_at = now() - interval '1 second'
         from unnest($1::bigint[], $2::float8[]) as v(id, run)
        where j.id = v.id`,
      [finished.map((f) => f.id), finished.map((_, i) => i + 1)],
    );
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}queues/sync`)).body;

    assert.equal(figure(page, 'ready'), '1');
    assert.equal(figure(page, 'scheduled'), '1');
    assert.equal(figure(page, 'latency'), '45 s');
    assert.equal(figure(page, 'pending'), '2');
    assert.equal(figure(page, 'completed'), '10');
    assert.match(page, /<a href="\/jobs\?queue=sync&amp;status=completed">10<\/a>/);

    assert.equal(option(page, 'max attempts'), '7');
    assert.equal(option(page, 'backoff'), '30 s × 3 per attempt, at most 10 min, exact');
    assert.equal(option(page, 'timeout'), '90 s');
    assert.equal(option(page, 'global concurrency'), '4');
    assert.match(option(page, 'concurrency keys'), /^2 at once per key, by priority; tiers pro 5/);
    assert.match(option(page, 'rate limiters'), /github: 5,000 per 60 min, burst 100; 0 held back now/);
    assert.match(
      page,
      /<dt>retention \(queue\)<\/dt><dd data-option="retention \(queue\)">completed 1 h \(3,600 s\), failed kept forever/,
    );

    // percentile_cont over 1..10 s: p50 5.5 s, p95 9.55 s.
    assert.match(page, /<g data-ago="0" data-p50-ms="5500" data-p95-ms="9550">/);
    assert.match(page, /data-total-run-p50-ms="5500">5\.5 s</);
    assert.match(page, /data-chart="run"/);

    const plain = (await get(`${url}queues/plain`)).body;
    assert.equal(option(plain, 'timeout'), 'none');
    assert.equal(option(plain, 'rate limiters'), 'none');
    assert.match(plain, /<dt>retention \(engine default\)<\/dt>/);
    assert.equal(figure(plain, 'latency'), '—');

    // Pause from the queue's page: a CSRF-checked POST that comes back to the page.
    const csrf = csrfIn(page);
    assert.equal(
      (await post(`${url}queues/pause`, { queue: 'sync', from: 'queue' })).status,
      403,
      'no token',
    );
    assert.equal((await tm.listQueues()).find((q) => q.name === 'sync')?.paused, false);
    const paused = await post(`${url}queues/pause`, { csrf, queue: 'sync', from: 'queue' });
    assert.equal(paused.status, 303);
    assert.equal(paused.res.headers.get('location'), '/queues/sync');
    const after = (await get(`${url}queues/sync`)).body;
    assert.match(after, /class="paused-flag">paused/);
    assert.match(
      after,
      /action="\/queues\/resume"[\s\S]*?name="from" value="queue"[\s\S]*?data-action="resume"/,
    );
    const resumed = await post(`${url}queues/resume`, { csrf, queue: 'sync', from: 'queue' });
    assert.equal(resumed.res.headers.get('location'), '/queues/sync');
    assert.equal((await tm.listQueues()).find((q) => q.name === 'sync')?.paused, false);
  });
});
