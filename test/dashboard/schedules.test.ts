import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver } from '../support/each-driver.js';

/** A daily schedule that fired once, as if its last slot had come while the test waited. */
async function firedSchedule(tm: Tidemark): Promise<string> {
  tm.createQueue({ name: 'reports' });
  await tm.schedule({ name: 'nightly', cron: '0 3 * * *', queue: 'reports', timezone: 'Europe/Paris' });
  await rawQuery(
    tm,
    `update "${tm.schema}".schedules set last_fire_at = now() - interval '2 days' where name = 'nightly'`,
  );
  assert.equal((await tickOnce(tickInputs(engineOf(tm)))).scheduled, 1);
  const [fire] = await rawQuery<{ job_id: string }>(
    tm,
    `select job_id::text as job_id from "${tm.schema}".schedule_fires`,
  );
  return fire.job_id;
}

describeOnOneDriver('dashboard schedules', ({ open }) => {
  test('Pause, Resume and Fire now act through the API and say what they did', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'mail' });
    await tm.schedule({ name: 'digest', cron: '0 * * * *', queue: 'mail' });
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}schedules`)).body;
    const csrf = csrfIn(page);
    assert.match(page, /action="\/schedules\/pause"/);
    const paused = await post(`${url}schedules/pause`, { csrf, name: 'digest' });
    assert.equal(paused.status, 303, paused.body);
    assert.equal((await tm.listSchedules())[0].paused, true);
    const shown = (await get(new URL(paused.res.headers.get('location') ?? '', url).href)).body;
    assert.match(shown, /is paused: it fires nothing until resumed/);
    assert.match(shown, /<strong>paused<\/strong>/);
    assert.match(shown, /action="\/schedules\/resume"/);
    const fired = await post(`${url}schedules/trigger`, { csrf, name: 'digest' });
    assert.equal(fired.status, 303);
    assert.match(fired.res.headers.get('location') ?? '', /done=triggered/);
    assert.equal((await tm.listJobs({ queue: 'mail' })).jobs.length, 1);
    await post(`${url}schedules/resume`, { csrf, name: 'digest' });
    assert.equal((await tm.listSchedules())[0].paused, false);
    const missing = await post(`${url}schedules/pause`, { csrf, name: 'nope' });
    assert.equal(missing.status, 404);
  });

  test('the Schedules page lists each schedule with its next fire and its fires linked to their jobs', async () => {
    const tm = await open({ logger: silentLogger });
    const jobId = await firedSchedule(tm);
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}schedules`)).body;
    assert.match(page, /<a href="\/schedules" class="current">Schedules<\/a>/);
    assert.match(page, /<tr data-schedule="nightly">/);
    assert.match(page, /<td class="mono">0 3 \* \* \*<\/td><td>Europe\/Paris<\/td>/);
    // 03:00 in Paris is 01:00 or 02:00 UTC, depending on summer time.
    assert.match(page, /<td class="small next-fire">\d{4}-\d\d-\d\d 0[12]:00:00 UTC <span class="muted">in /);
    assert.match(
      page,
      new RegExp(`<a href="/jobs/${jobId}">job ${jobId}</a> <span class="status status-pending">`),
    );
  });

  test('unschedule asks for confirmation, then removes the schedule; read-only refuses', async () => {
    const tm = await open({ logger: silentLogger });
    const jobId = await firedSchedule(tm);
    const readOnly = await tm.dashboard({ port: 0, readOnly: true });
    assert.doesNotMatch((await get(`${readOnly.url}schedules`)).body, /Unschedule/);
    const refused = await post(`${readOnly.url}schedules/unschedule`, { csrf: 'x', name: 'nightly' });
    assert.equal(refused.status, 403);

    const { url } = await tm.dashboard({ port: 0 });
    const list = (await get(`${url}schedules`)).body;
    assert.ok(list.includes('href="/schedules/confirm?name=nightly"'));
    assert.doesNotMatch(list, /action="\/schedules\/unschedule"/, 'no one-click removal');
    const confirm = (await get(`${url}schedules/confirm?name=nightly`)).body;
    assert.match(confirm, /<form method="post" action="\/schedules\/unschedule" id="confirm-unschedule">/);
    assert.equal((await tm.listSchedules()).length, 1, 'the confirmation page removes nothing');
    assert.equal((await get(`${url}schedules/confirm?name=nope`)).status, 404);

    const csrf = csrfIn(confirm);
    const res = await post(`${url}schedules/unschedule`, { csrf, name: 'nightly' });
    assert.equal(res.status, 303);
    assert.equal(res.res.headers.get('location'), '/schedules?unscheduled=nightly');
    assert.deepEqual(await tm.listSchedules(), []);
    assert.ok(await tm.getJob(jobId), 'the jobs it created stay');
    assert.match((await get(`${url}schedules?unscheduled=nightly`)).body, /No schedules/);
    const again = await post(`${url}schedules/unschedule`, { csrf, name: 'nightly' });
    assert.equal(again.status, 404);
  });
});
