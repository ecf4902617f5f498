import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

/** Every page route, with the query it reads (so the NUL reaches the code that reads it). */
function pageRoutes(id: string): { path: string; param: string }[] {
  return [
    { path: '/', param: 'refresh' },
    { path: '/jobs', param: 'q' },
    { path: '/jobs', param: 'queue' },
    { path: '/jobs', param: 'status' },
    { path: '/queues/mail', param: 'window' },
    { path: `/jobs/${id}`, param: 'done' },
    { path: `/jobs/${id}/confirm`, param: 'action' },
    { path: '/retention', param: 'preview' },
    { path: '/purge', param: 'queue' },
    { path: '/storage', param: 'refresh' },
    { path: '/workers', param: 'refresh' },
    { path: '/schedules', param: 'unscheduled' },
    { path: '/schedules/confirm', param: 'name' },
  ];
}

describeOnOneDriver('dashboard: a NUL character in the request', ({ open }) => {
  test('every page answers 400 naming the parameter for a NUL in a query value, a query name or a path segment', async () => {
    const tm = await open();
    tm.createQueue({ name: 'mail' });
    const { id } = await tm.addJob({ queue: 'mail', data: {} });
    const dash = await tm.dashboard({ port: 0 });
    const base = dash.url.replace(/\/$/, '');

    // The cases the issue reported first.
    for (const path of ['/jobs?q=%00', '/jobs?status=retry&queue=%00', '/queues/%00']) {
      const res = await get(`${base}${path}`);
      assert.equal(res.status, 400, `${path}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, /NUL/, path);
    }

    for (const { path, param } of pageRoutes(id)) {
      const value = await get(`${base}${path}?${param}=a%00b`);
      assert.equal(value.status, 400, `${path}?${param}=a%00b`);
      assert.ok(value.body.includes(`query parameter &quot;${param}&quot;`), `${path}: names ${param}`);

      const name = await get(`${base}${path}?x%00y=1`);
      assert.equal(name.status, 400, `${path}?x%00y=1`);
      assert.match(name.body, /query parameter name/, `${path}: a NUL in a name`);

      const segment = `${path === '/' ? '' : path}/a%00b`;
      const inPath = await get(`${base}${segment}`);
      assert.equal(inPath.status, 400, segment);
      assert.match(inPath.body, /path segment/, `${segment}: names the path segment`);
    }

    // A query parameter after a good one is checked too, and the same request without a NUL is served.
    assert.equal((await get(`${base}/jobs?status=retry&queue=mail`)).status, 200);
    assert.equal((await get(`${base}/queues/mail`)).status, 200);
  });

  test('an action answers 400 naming the form field that holds a NUL, and changes nothing', async () => {
    const tm = await open();
    tm.createQueue({ name: 'mail' });
    const { id } = await tm.addJob({ queue: 'mail', data: {} });
    const dash = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${dash.url}jobs/${id}`)).body);

    const pause = await post(`${dash.url}queues/pause`, { csrf, queue: 'mail\u0000' });
    assert.equal(pause.status, 400, pause.body.slice(0, 200));
    assert.ok(pause.body.includes('form field &quot;queue&quot;'), 'names the field');
    const cancel = await post(`${dash.url}jobs/${id}/cancel?x=%00`, { csrf });
    assert.equal(cancel.status, 400, "a NUL in an action's query is refused as well");
    assert.equal((await tm.getJob(id))?.status, 'pending', 'nothing was cancelled');
    const queues = await tm.listQueues();
    assert.equal(queues.find((q) => q.name === 'mail')?.paused ?? false, false, 'nothing was paused');
  });
});
