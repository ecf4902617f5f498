import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { controlState } from '../support/control-state.js';
import { csrfIn, get, post, RAW_MARKUP } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { existingJobs, insertJob } from '../support/factory.js';

const HOSTILE = '<script>window.__xss="reason"</script>';

describeOnOneDriver('dashboard retention controls', ({ open }) => {
  test('pause and resume with CSRF; while paused every page shows the banner and a purge is refused', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await insertJob(tm, { queue: 'q', status: 'completed', finishedAt: -3_600 });
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}retention`)).body;
    assert.match(page, /id="pause-retention"/);
    const csrf = csrfIn(page);

    const forged = await post(`${url}retention/pause`, { reason: 'no token' });
    assert.equal(forged.status, 403);
    assert.equal((await tm.retentionStatus()).paused, false, 'a POST without the CSRF token changes nothing');

    const paused = await post(`${url}retention/pause`, { csrf, reason: HOSTILE });
    assert.equal(paused.status, 303, paused.body);
    assert.equal(paused.res.headers.get('location'), '/retention?done=paused');
    assert.equal((await tm.retentionStatus()).reason, HOSTILE);
    for (const path of ['', 'jobs', 'retention', 'purge', 'storage', 'workers']) {
      const body = (await get(`${url}${path}`)).body;
      assert.match(body, /id="retention-paused"/, `the banner on /${path}`);
      assert.ok(body.includes('&lt;script&gt;window.__xss'), 'the reason is escaped');
      for (const raw of RAW_MARKUP) assert.doesNotMatch(body, raw);
    }
    const purge = await post(`${url}purge/confirm`, {
      csrf,
      status: 'completed',
      olderThanSeconds: '0',
      confirm: 'yes',
    });
    assert.equal(purge.status, 409);
    assert.match(purge.body, /retention is paused/);
    assert.equal((await existingJobs(tm)).length, 1);

    const retentionPage = (await get(`${url}retention`)).body;
    assert.match(retentionPage, /data-action="resume retention"/);
    const resumed = await post(`${url}retention/resume`, { csrf });
    assert.equal(resumed.status, 303);
    assert.equal((await tm.retentionStatus()).paused, false);
    assert.doesNotMatch((await get(url)).body, /id="retention-paused"/);
  });

  test('place a hold on a queue, see it on the retention and job pages, release it', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'audit' });
    const id = await insertJob(tm, { queue: 'audit', status: 'completed', purgeAfter: -60 });
    const { url } = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${url}retention`)).body);
    const placed = await post(`${url}retention/holds`, {
      csrf,
      queue: 'audit',
      ids: '',
      reason: 'incident 7',
    });
    assert.equal(placed.status, 303, placed.body);
    const [hold] = await tm.listHolds();
    assert.equal(hold.queue, 'audit');
    const page = (await get(`${url}retention`)).body;
    assert.match(page, /<table id="holds">/);
    assert.match(page, /incident 7/);
    assert.match(
      (await get(`${url}jobs/${id}`)).body,
      /id="job-holds">Kept by hold <span class="mono">\d+<\/span> \(incident 7\)/,
    );
    assert.equal((await tm.sweep()).jobs, 0);

    const before = await controlState(tm);
    const byIds = await post(`${url}retention/holds`, { csrf, queue: '', ids: `${id}, 999999`, reason: 'x' });
    assert.equal(byIds.status, 404, 'an unknown id refuses the whole hold');
    assert.equal((await tm.listHolds()).length, 1);
    assert.deepEqual(
      await controlState(tm),
      before,
      'the refused hold wrote nothing, not even the gate version',
    );

    const released = await post(`${url}retention/holds/release`, { csrf, hold: hold.id });
    assert.equal(released.status, 303);
    assert.deepEqual(await tm.listHolds(), []);
    assert.equal((await tm.sweep()).jobs, 1);
  });

  test('apply a queue stored policy to its history: a dry-run count, then the change', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'emails', retention: { completed: 60 } });
    const ids = [
      await insertJob(tm, { queue: 'emails', status: 'completed', finishedAt: -3_600, retention: {} }),
      await insertJob(tm, { queue: 'emails', status: 'completed', finishedAt: -3_600, retention: {} }),
    ];
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}retention`)).body;
    const csrf = csrfIn(page);
    assert.match(page, /data-action="apply to history…"/);
    const preview = await post(`${url}retention/apply/preview`, { csrf, queue: 'emails' });
    assert.equal(preview.status, 200);
    assert.match(preview.body, /<strong id="apply-count">2<\/strong> jobs of queue <strong>emails<\/strong>/);
    assert.equal((await tm.getJob(ids[0]))?.purgeAfter, null, 'the dry run changed nothing');
    const done = await post(`${url}retention/apply/confirm`, { csrf, queue: 'emails', confirm: 'yes' });
    assert.equal(done.status, 200);
    assert.match(done.body, /<strong id="apply-done">2<\/strong>/);
    assert.deepEqual((await tm.getJob(ids[0]))?.retention, { completed: 60 });
    assert.equal((await tm.sweep()).jobs, 2);
  });

  test('a read-only dashboard shows the switch and the holds but offers and accepts no action', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    await tm.holdJobs({ queue: 'q', reason: 'kept' });
    const { url } = await tm.dashboard({ port: 0, readOnly: true });
    const page = (await get(`${url}retention`)).body;
    assert.match(page, /id="retention-switch"/);
    assert.match(page, /kept/);
    assert.doesNotMatch(page, /id="pause-retention"|data-action="release"|id="place-hold"/);
    const refused = await post(`${url}retention/pause`, { csrf: 'x', reason: 'y' });
    assert.equal(refused.status, 403);
    assert.equal((await tm.retentionStatus()).paused, false);
  });
});
