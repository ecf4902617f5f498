import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { get, RAW_MARKUP, seedDashboard, XSS } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('dashboard pages', ({ open }) => {
  test('every page renders escaped, under a strict CSP, with no script at all', async () => {
    const tm = await open();
    const seeded = await seedDashboard(tm);
    const dashboard = await tm.dashboard({ port: 0 });
    const paths = [
      '',
      'jobs',
      `jobs?queue=${encodeURIComponent(XSS.queue)}`,
      `jobs?q=${encodeURIComponent('<script>')}`,
      `jobs?tag=${encodeURIComponent(XSS.step)}`,
      `jobs/${seeded.workflow}`,
      `jobs/${seeded.failed}`,
      `jobs/${seeded.parent}`,
      `jobs/${seeded.failed}/confirm?action=delete`,
      `jobs/${seeded.pending}/confirm?action=cancel`,
      'schedules',
      'retention',
      'retention?preview=1',
      'purge',
      'storage',
      'workers',
      `jobs?status=${encodeURIComponent('"><script>')}`,
    ];
    for (const path of paths) {
      const { status, body, res } = await get(dashboard.url + path);
      // An unknown status is a bad filter (400), shown escaped like everything else.
      const expected = path.startsWith('jobs?status=') ? 400 : 200;
      assert.equal(status, expected, `${path}: ${body.slice(0, 300)}`);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.doesNotMatch(body, /<script/i, `${path} has no script element`);
      for (const raw of RAW_MARKUP) assert.doesNotMatch(body, raw, `${path} leaks ${raw}`);
    }
  });

  test('the hostile values show up, escaped, where they belong', async () => {
    const tm = await open();
    const seeded = await seedDashboard(tm);
    const dashboard = await tm.dashboard({ port: 0 });
    const overview = (await get(dashboard.url)).body;
    assert.ok(
      overview.includes('q&lt;script&gt;window.__xss=&quot;queue&quot;&lt;/script&gt;'),
      'queue name',
    );
    assert.ok(
      overview.includes('q2&quot;&gt;&lt;img src=x onerror=&quot;window.__xss=&#39;queue2&#39;&quot;&gt;'),
    );
    const detail = (await get(`${dashboard.url}jobs/${seeded.workflow}`)).body;
    assert.ok(
      detail.includes('&lt;script&gt;window.__xss=\\&quot;data\\&quot;&lt;/script&gt;'),
      'data in JSON',
    );
    assert.ok(
      detail.includes('&quot;&gt;&lt;img src=x onerror=&quot;window.__xss=&#39;error&#39;&quot;&gt;'),
      'error',
    );
    assert.ok(
      detail.includes('&lt;script&gt;window.__xss=&quot;step&quot;&lt;/script&gt;'),
      'checkpoint name',
    );
    assert.ok(
      detail.includes('&quot;&gt;&lt;img src=x onerror=&quot;window.__xss=&#39;signal&#39;&quot;&gt;'),
      'signal',
    );
    assert.ok(
      detail.includes('&lt;svg onload=&quot;window.__xss=&#39;pending&#39;&quot;&gt;'),
      'pending signal',
    );
    const start = detail.indexOf('id="job-notes"');
    const notes = detail.slice(start, detail.indexOf('<div class="card', start));
    assert.ok(
      notes.includes(
        '<span class="tag mono">&lt;script&gt;window.__xss=&quot;step&quot;&lt;/script&gt;</span>',
      ),
      'tag',
    );
    assert.ok(
      notes.includes('&quot;&gt;&lt;img src=x onerror=&quot;window.__xss=&#39;error&#39;&quot;&gt;'),
      'log line',
    );
    assert.ok(notes.includes('&lt;svg onload='), 'metadata key');
    const tagged = (await get(`${dashboard.url}jobs?tag=tagged`)).body;
    assert.ok(tagged.includes(`/jobs/${seeded.workflow}`), 'the tag filter finds the job');
    assert.ok(!tagged.includes(`/jobs/${seeded.failed}"`), 'and only it');
  });

  test('queues page: counts per status, paused state and the throughput chart', async () => {
    const tm = await open();
    await seedDashboard(tm);
    await tm.pauseQueue('held');
    const dashboard = await tm.dashboard({ port: 0 });
    const body = (await get(dashboard.url)).body;
    const row = (name: string) =>
      body.match(new RegExp(`<tr data-queue="${name}">([\\s\\S]*?)</tr>`))?.[1] ?? '';
    // columns: pending active retry waiting paused completed failed cancelled expired
    const cells = (name: string) =>
      [...row(name).matchAll(/<td class="num">([\s\S]*?)<\/td>/g)].map((m) =>
        m[1].replace(/<[^>]+>/g, '').trim(),
      );
    assert.deepEqual(cells('mail').slice(0, 9), ['0', '0', '0', '0', '0', '12', '0', '0', '0']);
    assert.deepEqual(cells('billing').slice(5, 7), ['1', '1']);
    assert.equal(cells('held')[0], '1');
    assert.match(row('held'), /paused/);
    assert.match(row('held'), /data-action="resume"/);
    assert.match(row('mail'), /data-action="pause"/);
    assert.match(
      body,
      /<svg viewBox="0 0 720 150" role="img" aria-label="Jobs finished per minute over the last hour: (\d+) in all" data-chart="throughput"/,
    );
    const total = Number(body.match(/over the last hour: (\d+) in all/)?.[1]);
    assert.ok(total >= 17, `chart counts the finished jobs (${total})`);
  });

  test('job detail: data, output, error with stack, attempts, checkpoints, signals, children, retention', async () => {
    const tm = await open();
    const seeded = await seedDashboard(tm);
    const dashboard = await tm.dashboard({ port: 0 });
    const retried = (await get(`${dashboard.url}jobs/${seeded.retrying}`)).body;
    assert.match(retried, /attempt 1 failed: <strong>Error<\/strong> card declined/);
    assert.match(retried, /attempt 2 completed/);
    assert.match(retried, /&quot;charged&quot;: true/);
    const failed = (await get(`${dashboard.url}jobs/${seeded.failed}`)).body;
    assert.match(failed, /<pre class="stack">Error: card declined\n\s+at /);
    assert.match(failed, /Due \d{4}-\d\d-\d\d .* \(in 90 d\)/, 'failed jobs are kept 90 days by default');
    assert.match(failed, /data-action="retry"/);
    assert.doesNotMatch(failed, /data-action="cancel"/);
    const workflow = (await get(`${dashboard.url}jobs/${seeded.workflow}`)).body;
    assert.match(workflow, /Checkpoints \((\d+)\)/);
    assert.match(workflow, /<span class="status status-completed">consumed<\/span>/);
    assert.match(workflow, /<span class="status status-waiting">pending<\/span>/);
    const parent = (await get(`${dashboard.url}jobs/${seeded.parent}`)).body;
    assert.ok(parent.includes(`href="/jobs/${seeded.child}"`), 'children tree links the child');
    const child = (await get(`${dashboard.url}jobs/${seeded.child}`)).body;
    assert.ok(child.includes(`href="/jobs/${seeded.parent}"`), 'the child links its parent');
    assert.match(child, /a tree is deleted only when all its members are due/);
    const pending = (await get(`${dashboard.url}jobs/${seeded.pending}`)).body;
    assert.match(pending, /In flight: never deleted/);
    assert.equal((await get(`${dashboard.url}jobs/999999999`)).status, 404);
    assert.equal((await get(`${dashboard.url}jobs/9999999999999999999`)).status, 400, 'beyond bigint');
  });

  test('retention page: policies per queue, last sweeps with what they deleted, next sweep, dry-run preview', async () => {
    const tm = await open({ retention: { completed: 3600 } });
    tm.createQueue({ name: 'short', retention: { ttlSeconds: 60 } });
    tm.createQueue({ name: 'forever', retention: false });
    tm.createQueue({ name: 'plain' });
    const { id } = await tm.addJob({ queue: 'short', data: {} });
    await tm.cancelJob(id);
    await runnerOf(engineOf(tm).storage).driver.query(
      `update "${tm.schema}".jobs set purge_after = now() - interval '1 minute' where id = $1::bigint`,
      [id],
    );
    const dashboard = await tm.dashboard({ port: 0 });
    const before = (await get(`${dashboard.url}retention?preview=1`)).body;
    assert.match(before, /A sweep now would delete <strong>1<\/strong> jobs/);
    assert.match(before, /<td>short<\/td><td>cancelled<\/td><td class="num">1<\/td>/);
    assert.match(before, /No sweeps recorded yet/);
    assert.match(
      before,
      /<tr><td>short<\/td><td class="small">queue<\/td><td class="small">1 min \(60 s\)<\/td>/,
    );
    assert.match(
      before,
      /<tr><td>forever<\/td><td class="small">queue<\/td><td class="small">kept forever<\/td>/,
    );
    assert.match(
      before,
      /<tr><td>plain<\/td><td class="small">engine default<\/td><td class="small">1 h \(3,600 s\)<\/td><td class="small">kept forever<\/td>/,
    );
    assert.ok(await tm.getJob(id), 'the preview deleted nothing');
    await tm.sweep();
    const after = (await get(`${dashboard.url}retention`)).body;
    assert.match(after, /<table class="sweeps">[\s\S]*<td class="num">1<\/td>[\s\S]*short\/cancelled: 1/);
    await runnerOf(engineOf(tm).storage).driver.query(
      `insert into "${tm.schema}".maintenance (name, last_run_at) values ('retention-sweep', now())`,
    );
    const next = (await get(`${dashboard.url}retention`)).body;
    // No worker runs: the page claims no interval of its own.
    assert.match(next, /No live worker sweeps\.<\/strong> No live worker is registered/);
    assert.match(next, /Last sweep turn \d{4}-\d\d-\d\d [\d:]+ UTC/);
    assert.doesNotMatch(next, /next due/i);
  });

  test('storage page: every table with sizes, live and dead rows, and the indexes', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const added = await tm.addJobs(Array.from({ length: 20 }, () => ({ queue: 'q', data: {} })));
    for (const job of added.slice(0, 5)) await tm.cancelJob(job.id);
    const dashboard = await tm.dashboard({ port: 0 });
    const body = (await get(`${dashboard.url}storage`)).body;
    for (const table of ['jobs', 'checkpoints', 'signals', 'unique_locks', 'schedules', 'sweeps', 'queues']) {
      assert.match(
        body,
        new RegExp(`<tr data-table="${table}"><td class="mono">${table}</td><td class="num">\\d`),
        table,
      );
    }
    assert.match(body, /jobs_queue_status_idx/);
    if (tm.driverKind === 'pglite') {
      // PGlite's statistics are flushed on request: the counts are this process's own.
      const jobs = body.match(/<tr data-table="jobs">([\s\S]*?)<\/tr>/)?.[1] ?? '';
      const nums = [...jobs.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1]);
      assert.equal(nums[3], '20', 'live rows');
      assert.ok(Number(nums[4]) >= 5, `dead rows (${nums[4]})`);
      assert.match(body, /id="pglite-statistics">Embedded PGlite keeps no statistics across opens/);
    } else {
      assert.doesNotMatch(body, /pglite-statistics/, 'PostgreSQL keeps its statistics: nothing to explain');
    }
  });
});
