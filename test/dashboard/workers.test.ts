import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatTime } from '../../src/admin/format.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { get, RAW_MARKUP, XSS } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';

const DAY = 86_400;

/** Move a worker's last beat into the past, as if it had stopped beating that long ago. */
async function beatAgo(tm: Tidemark, id: string, seconds: number): Promise<void> {
  await rawQuery(
    tm,
    `update "${tm.schema}".workers set heartbeat_at = now() - $2 * interval '1 second' where id = $1`,
    [id, seconds],
  );
}

describeOnOneDriver('dashboard: workers and what they really run', ({ open }) => {
  test('the Workers page lists each worker, live or gone, with hostile values escaped', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: XSS.queue, handler: () => null });
    tm.createQueue({ name: 'plain', handler: () => null });
    const hostileId = '<script>window.__xss="worker"</script>';
    const live = fastWorker(tm, {
      id: hostileId,
      queues: [XSS.queue],
      concurrency: 3,
      sweep: { intervalSeconds: 60, batchSize: 500 },
      lockSeconds: 600,
    });
    const dead = fastWorker(tm, { id: 'dead-1', queues: ['plain'], lockSeconds: 600 });
    await Promise.all([live.start(), dead.start()]);
    await beatAgo(tm, 'dead-1', 900); // three beats of 200 s missed

    const dashboard = await tm.dashboard({ port: 0 });
    const { status, body } = await get(`${dashboard.url}workers`);
    assert.equal(status, 200);
    for (const raw of RAW_MARKUP) assert.doesNotMatch(body, raw);
    assert.match(body, /<a href="[^"]*\/workers" class="current">Workers<\/a>/);
    assert.match(body, /1 live, 1 gone\./);
    const rowOf = (id: string) =>
      body.match(new RegExp(`<tr data-worker="${id}">([\\s\\S]*?)</tr>`))?.[1] ?? '';
    const escapedId = '&lt;script&gt;window.__xss=&quot;worker&quot;&lt;/script&gt;';
    const liveRow = rowOf(escapedId);
    assert.ok(liveRow.includes(`<td class="mono">${escapedId}</td>`), body);
    assert.ok(
      liveRow.includes('q&lt;script&gt;window.__xss=&quot;queue&quot;&lt;/script&gt;'),
      'queue escaped',
    );
    assert.match(liveRow, new RegExp(`<td class="num">${process.pid}</td>`));
    assert.match(liveRow, /<td class="num">0<\/td><td class="num">3<\/td>/, 'running, concurrency');
    assert.match(liveRow, /status-live">live</);
    assert.match(liveRow, /retention every 1 min \(60 s\), batches of 500<br>unique locks off/);
    assert.match(liveRow, /\d+ s ago|in \d+ ms|\d+ ms ago/, 'last beat, relative');
    const deadRow = rowOf('dead-1');
    assert.match(deadRow, /status-gone">gone</);
    assert.match(deadRow, /<td class="small" title="[^"]+">\d+ min ago<\/td>/);
    assert.match(deadRow, /retention off/);
    await Promise.all([live.stop(), dead.stop()]);
    const after = (await get(`${dashboard.url}workers`)).body;
    assert.match(after, /No worker is registered/);
  });

  test('the Retention page shows the live workers\u2019 interval and batch size, and the next turn from the last', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', handler: () => null });
    const sweeper = fastWorker(tm, { id: 'sweeper', sweep: { intervalSeconds: 60, batchSize: 250 } });
    const idle = fastWorker(tm, { id: 'no-sweep', sweep: false });
    // Gone: its own (shorter) interval must not count.
    const gone = fastWorker(tm, {
      id: 'gone',
      sweep: { intervalSeconds: 30, batchSize: 10 },
      lockSeconds: 600,
    });
    await Promise.all([sweeper.start(), idle.start(), gone.start()]);
    await beatAgo(tm, 'gone', 900);
    await rawQuery(
      tm,
      `insert into "${tm.schema}".maintenance (name, last_run_at) values ('retention-sweep', now() - interval '10 seconds')
       on conflict (name) do update set last_run_at = excluded.last_run_at`,
    );
    const [turn] = await rawQuery<{ last_run_at: Date }>(
      tm,
      `select last_run_at from "${tm.schema}".maintenance where name = 'retention-sweep'`,
    );
    const dashboard = await tm.dashboard({ port: 0 });
    const body = (await get(`${dashboard.url}retention`)).body;
    const card = body.match(/<div class="card" id="next-sweep">([\s\S]*?)<\/div>/)?.[1] ?? '';
    assert.match(
      card,
      /1 of 2 live workers sweep\s+<span id="sweep-interval">every 1 min \(60 s\)<\/span> in batches of 250 rows/,
    );
    assert.ok(card.includes(`Last sweep turn ${formatTime(turn.last_run_at)}`), card);
    const next = new Date(new Date(turn.last_run_at).getTime() + 60_000);
    assert.ok(card.includes(`Next due about ${formatTime(next)} (in `), card);
    assert.doesNotMatch(card, /3,600|default interval|every 30 s/);

    await tm.pauseRetention({ reason: 'audit' });
    const paused = (await get(`${dashboard.url}retention`)).body;
    assert.match(paused, /<strong>Retention is paused<\/strong>: the sweeps run but delete nothing/);
    await Promise.all([sweeper.stop(), idle.stop(), gone.stop()]);
  });

  test('a queue whose jobs carry 7 d shows that beside its 30 d policy', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'audit', retention: { completed: 7 * DAY, failed: 7 * DAY } });
    await tm.addJobs([1, 2, 3].map((i) => ({ queue: 'audit', data: { i } })));
    // Another process stores a wider policy later: the jobs already added keep their 7 d.
    const other = await open({ schema: tm.schema, logger: silentLogger });
    other.createQueue({ name: 'audit', retention: { completed: 30 * DAY, failed: 30 * DAY } });
    await other.addJob({ queue: 'audit', data: { i: 4 } });
    tm.createQueue({ name: 'matching', retention: { completed: DAY } });
    await tm.addJob({ queue: 'matching' });

    const dashboard = await tm.dashboard({ port: 0 });
    const body = (await get(`${dashboard.url}retention`)).body;
    const row = (queue: string) =>
      body.match(new RegExp(`<tr><td>${queue}</td>([\\s\\S]*?)</tr>`))?.[1] ?? '';
    const audit = row('audit');
    assert.match(
      audit,
      /<td class="small">queue<\/td><td class="small">30 d \(2,592,000 s\)<\/td>/,
      'the stored policy',
    );
    const carried = audit.match(/<td class="small carried">([\s\S]*?)<\/td>/)?.[1] ?? '';
    assert.match(
      carried,
      /<div class="differs">3 × completed 7 d \(604,800 s\), failed 7 d \(604,800 s\)[^<]*<strong>\(not the policy\)<\/strong><\/div>/,
    );
    assert.match(carried, /<div class="">1 × completed 30 d \(2,592,000 s\), failed 30 d/);
    const matching = row('matching').match(/<td class="small carried">([\s\S]*?)<\/td>/)?.[1] ?? '';
    assert.match(matching, /1 × completed 1 d/);
    assert.doesNotMatch(matching, /not the policy/);
    assert.match(body, /newest 200 jobs/);
  });
});
