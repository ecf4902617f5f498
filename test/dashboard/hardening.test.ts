import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createDashboardHandler } from '../../src/dashboard/index.js';
import { InvalidOptionError } from '../../src/index.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { closeServer, serveOn } from '../support/local-http.js';

const TOKEN = 'correct-horse-battery-staple';
const OTHER_TOKEN = 'another-token-entirely-0123';

const PROXY_HEADERS: [string, string][] = [
  ['Forwarded', 'for=198.51.100.7;proto=https'],
  ['X-Forwarded-For', '198.51.100.7'],
  ['X-Forwarded-Host', 'dashboard.example'],
  ['X-Forwarded-Proto', 'https'],
  ['X-Forwarded-Port', '443'],
  ['Via', '1.1 nginx'],
  ['X-Real-IP', '198.51.100.7'],
];

async function logIn(url: string): Promise<string> {
  const csrf = csrfIn((await get(`${url}login`)).body);
  const res = await post(`${url}login`, { csrf, token: TOKEN });
  assert.equal(res.status, 303, res.body);
  return (res.res.headers.get('set-cookie') ?? '').split(';')[0];
}

describeOnOneDriver('dashboard hardening', ({ open }) => {
  test('without a token, a request that came through a proxy is refused: a dashboard behind a proxy needs a token', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const local = await tm.dashboard({ port: 0 });
    const csrf = csrfIn((await get(`${local.url}jobs/${id}`)).body);
    for (const [name, value] of PROXY_HEADERS) {
      // The Host is the upstream's loopback address, as nginx sends it by default.
      const page = await get(`${local.url}jobs/${id}`, { [name]: value });
      assert.equal(page.status, 403, name);
      assert.match(page.body, /a dashboard behind a proxy needs a token/i, name);
      assert.ok(page.body.includes(name), `the refusal names ${name}`);
      const action = await post(`${local.url}jobs/${id}/cancel`, { csrf }, { [name]: value });
      assert.equal(action.status, 403, `${name} on an action`);
    }
    assert.equal((await tm.getJob(id))?.status, 'pending', 'no proxied action ran');
    assert.equal((await get(`${local.url}jobs/${id}`)).status, 200, 'a direct local request is served');

    const secured = await tm.dashboard({ port: 0, token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const [name, value] of PROXY_HEADERS) {
      assert.equal((await get(`${secured.url}jobs/${id}`, { ...auth, [name]: value })).status, 200, name);
    }
  });

  test('Log out ends the session: a replayed cookie reads and changes nothing; another token ends it too', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const first = await tm.dashboard({ port: 0, token: TOKEN });
    const cookie = await logIn(first.url);
    const page = await get(`${first.url}jobs/${id}`, { cookie });
    assert.equal(page.status, 200);
    const csrf = csrfIn(page.body);
    const out = await post(`${first.url}logout`, { csrf }, { cookie });
    assert.equal(out.status, 303);

    const replayedPage = await get(`${first.url}jobs/${id}`, { cookie });
    assert.equal(replayedPage.status, 303, 'a logged-out cookie is sent to the login page');
    assert.equal(
      replayedPage.res.headers.get('location'),
      `/login?next=${encodeURIComponent(`/jobs/${id}`)}`,
    );
    const replayedAction = await post(`${first.url}jobs/${id}/cancel`, { csrf }, { cookie });
    assert.equal(replayedAction.status, 401);
    assert.equal((await tm.getJob(id))?.status, 'pending', 'the replayed action did nothing');
    assert.equal((await post(`${first.url}logout`, { csrf }, { cookie })).status, 401);

    // A second login is a new session; the dashboard restarted with another token knows none.
    const again = await logIn(first.url);
    assert.notEqual(again, cookie);
    assert.equal((await get(first.url, { cookie: again })).status, 200);
    await first.close();
    const second = await tm.dashboard({ port: 0, token: OTHER_TOKEN });
    assert.equal((await get(second.url, { cookie: again })).status, 303, 'a new token ends old sessions');
  });

  test('a refusal the engine throws on purpose is a message on the page with a 4xx (503 once closed), never a 500', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const { url, server } = await serveOn(createDashboardHandler(tm));
    try {
      const csrf = csrfIn((await get(url)).body);
      const retry = await post(`${url}jobs/${id}/retry`, { csrf });
      assert.equal(retry.status, 409, 'InvalidJobStateError');
      assert.match(
        retry.body,
        new RegExp(`job ${id} is pending; only finished or retry-waiting jobs can be retried`),
      );
      const del = await post(`${url}jobs/${id}/delete`, { csrf });
      assert.equal(del.status, 409, 'JobInFlightError');
      assert.match(del.body, /in-flight jobs are never deleted/);
      const hold = await post(`${url}retention/holds/release`, { csrf, hold: '4242' });
      assert.equal(hold.status, 404, 'HoldNotFoundError');
      assert.match(hold.body, /retention hold 4242 not found/);
      const held = await post(`${url}retention/holds`, { csrf, queue: '<b>nope</b>', reason: 'r' });
      assert.equal(held.status, 404, 'QueueNotFoundError');
      assert.match(held.body, /queue &#39;&lt;b&gt;nope&lt;\/b&gt;&#39; does not exist/);
      assert.equal((await tm.getJob(id))?.status, 'pending');

      // A handler mounted in an application outlives the engine it shows.
      await tm.close();
      const action = await post(`${url}queues/pause`, { csrf, queue: 'q' });
      assert.equal(action.status, 503, action.body);
      assert.match(action.body, /Tidemark is closed/);
      const page = await get(`${url}jobs`);
      assert.equal(page.status, 503, page.body);
      assert.match(page.body, /Tidemark is closed/);
    } finally {
      await closeServer(server);
    }
  });

  test('malformed and out-of-range list parameters answer 400 naming the parameter, never 500', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await tm.addJob({ queue: 'q', data: {} });
    const { url } = await tm.dashboard({ port: 0 });
    const cases: [string, RegExp][] = [
      ['since=1e300', /&#39;since&#39; must be a number of seconds/],
      ['to=-271821-04-20T00:00:00Z', /&#39;to&#39; must be a date from 1970-01-01 to 9999-12-31/],
      ['from=-271821-04-20T00:00:00Z', /&#39;from&#39; must be a date/],
      ['from=275760-09-13T00:00:00Z', /&#39;from&#39;/],
      ['to=0001-01-01T00:00', /&#39;to&#39; must be a date/],
      ['since=1e12', /&#39;since&#39;/],
      ['since=-5', /&#39;since&#39;/],
      ['since=NaN', /&#39;since&#39;/],
      ['from=yesterday', /&#39;from&#39; is not a date/],
      ['before=0', /&#39;before&#39; must be a page cursor/],
      ['before=99999999999999999999', /&#39;before&#39; must be a page cursor/],
      ['after=-1', /&#39;after&#39; must be a page cursor/],
      ['after=9223372036854775808', /&#39;after&#39; must be a page cursor/],
      ['after=2&before=9', /&#39;before&#39; and &#39;after&#39; page in opposite directions/],
      ['status=bogus', /unknown status/],
    ];
    for (const [query, message] of cases) {
      const res = await get(`${url}jobs?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.body.slice(0, 200)}`);
      assert.match(res.body, message, query);
      assert.match(res.body, /Nothing was searched/, query);
    }
    const fine = await get(`${url}jobs?since=3600&from=2020-01-01T00:00&to=9999-12-31T00:00`);
    assert.equal(fine.status, 200);
    assert.match(fine.body, /data-job-id=/);
  });

  test("a basePath with a '.' or '..' segment is refused, naming basePath, and nothing listens", async () => {
    const tm = await open();
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await closeServer(probe);
    for (const basePath of ['/../x', '/..', '/.', '/a/./b', '/a/..']) {
      const refused = (error: unknown) =>
        error instanceof InvalidOptionError && error.field === 'basePath' && /basePath/.test(error.message);
      assert.throws(() => createDashboardHandler(tm, { basePath }), refused, basePath);
      await assert.rejects(tm.dashboard({ port, basePath }), refused, basePath);
    }
    // The port is still free: nothing was started.
    const again = createServer();
    await new Promise<void>((resolve, reject) => {
      again.once('error', reject);
      again.listen(port, '127.0.0.1', resolve);
    });
    await closeServer(again);
    const dotted = await tm.dashboard({ port: 0, basePath: '/a..b/.well' });
    assert.equal((await get(dotted.url)).status, 200, 'dots inside a segment are fine');
  });
});
