import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('dashboard: a queue’s concurrency keys', ({ open }) => {
  test('lists keys busiest first, pauses, resumes and sets limits with CSRF; escapes key names', async () => {
    const tm = await open();
    tm.createQueue({ name: 'sync', keys: { concurrency: { default: 2, tiers: { pro: 5 } } } });
    await tm.addJobs([
      { queue: 'sync', key: '<b>a</b>' },
      { queue: 'sync', key: 'tenant:b', tier: 'pro' },
      { queue: 'sync', key: 'tenant:b', tier: 'pro' },
    ]);
    const { url } = await tm.dashboard({ port: 0 });
    const page = await get(`${url}queues/sync/keys`);
    assert.equal(page.status, 200);
    assert.match(page.body, /data-key="&lt;b&gt;a&lt;\/b&gt;"/);
    assert.doesNotMatch(page.body, /<b>a<\/b>/);
    assert.match(page.body, /data-key="tenant:b"><td class="mono">tenant:b<\/td><td>pro<\/td>/);
    assert.match((await get(`${url}queues/sync`)).body, /id="queue-keys"/);
    const csrf = csrfIn(page.body);

    const pause = await post(`${url}queues/sync/keys/pause`, { csrf, key: 'tenant:b' });
    assert.equal(pause.status, 303, pause.body);
    assert.deepEqual(
      (await tm.listKeys('sync', { blocked: true })).map((k) => k.key),
      ['tenant:b'],
    );
    assert.match((await get(`${url}queues/sync/keys?blocked=1`)).body, /status-paused/);
    assert.equal((await post(`${url}queues/sync/keys/resume`, { csrf, key: 'tenant:b' })).status, 303);
    assert.equal(
      (await post(`${url}queues/sync/keys/limit`, { csrf, key: 'tenant:b', concurrency: '9' })).status,
      303,
    );
    assert.equal((await tm.listKeys('sync')).find((k) => k.key === 'tenant:b')?.limit, 9);
    assert.equal(
      (await post(`${url}queues/sync/keys/limit`, { csrf, key: 'tenant:b', concurrency: '' })).status,
      303,
    );
    assert.equal((await tm.listKeys('sync')).find((k) => k.key === 'tenant:b')?.limit, 5);

    // Without the token, or with a bad limit, nothing changes.
    assert.equal((await post(`${url}queues/sync/keys/pause`, { key: 'tenant:b' })).status, 403);
    assert.equal(
      (await post(`${url}queues/sync/keys/limit`, { csrf, key: 'tenant:b', concurrency: '0' })).status,
      400,
    );
    assert.equal((await post(`${url}queues/nope/keys/pause`, { csrf, key: 'x' })).status, 404);
    assert.deepEqual(
      (await tm.listKeys('sync')).map((k) => [k.key, k.paused, k.limit]),
      [
        ['<b>a</b>', false, 2],
        ['tenant:b', false, 5],
      ],
    );
  });
});
