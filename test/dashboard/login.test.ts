import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashboardHandler } from '../../src/dashboard/handler.js';
import { resolveHandlerOptions } from '../../src/dashboard/options.js';
import { returnTarget } from '../../src/dashboard/return-to.js';
import { DEFAULT_THROTTLE } from '../../src/http/login-throttle.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { closeServer, from, serveOn } from '../support/local-http.js';

const TOKEN = 'correct-horse-battery-staple';
const { maxFailures, windowMs } = DEFAULT_THROTTLE;
const WINDOW_SECONDS = String(windowMs / 1000);

/** Each of these, given as `next`, must send a login to the dashboard's front page. */
const FOREIGN_NEXT = [
  '//evil.com',
  '//evil.com/jobs',
  'https://evil.com',
  'https://evil.com/',
  '/\\evil.com',
  '\\\\evil.com',
  '/jobs\\..\\..\\evil',
  'javascript:alert(1)',
  '/jobs\r\nSet-Cookie: x=1',
  '/\tevil.com',
  '/jobs//x',
  'evil.com',
  '',
];

describeOnOneDriver('dashboard login', ({ open }) => {
  test('wrong tokens are limited per address per window: then 429 with Retry-After, even for the right token; other addresses go on; after the window it works again', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    let now = Date.UTC(2030, 0, 1);
    const { url, server } = await serveOn(
      dashboardHandler(tm, resolveHandlerOptions({ token: TOKEN }), () => now),
    );
    try {
      const csrf = csrfIn((await get(`${url}login`)).body);
      const guess = (address: string, token: string) =>
        from(address, `${url}login`, { form: { csrf, token } });
      const bearer = (address: string, token: string) =>
        from(address, url, { headers: { authorization: `Bearer ${token}` } });

      // A client that knows the token, behind the same address, clears nothing.
      for (let i = 1; i < maxFailures; i++)
        assert.equal((await guess('127.0.0.1', `wrong-guess-${i}`)).status, 401);
      assert.equal(
        (await bearer('127.0.0.1', TOKEN)).status,
        200,
        'a right token within the limit is served',
      );
      assert.equal((await guess('127.0.0.1', 'wrong-guess-last')).status, 401);
      now += 60_000;
      const right = await guess('127.0.0.1', TOKEN);
      assert.equal(right.status, 429, `after ${maxFailures} wrong tokens even the right one waits`);
      assert.equal(right.headers['retry-after'], String(windowMs / 1000 - 60), 'until the window ends');
      assert.equal(right.headers['set-cookie'], undefined);
      assert.match(right.body, /Too many wrong tokens from this address: try again in \d+ s/);
      const header = await bearer('127.0.0.1', TOKEN);
      assert.equal(header.status, 429, 'the Bearer header is refused as well');
      assert.ok(header.headers['retry-after'], 'with Retry-After');

      assert.equal((await guess('127.0.0.2', TOKEN)).status, 303, 'another address logs in');
      assert.equal((await bearer('127.0.0.2', TOKEN)).status, 200);

      // Guesses through the Bearer header count the same.
      for (let i = 0; i < maxFailures; i++)
        assert.equal((await bearer('127.0.0.3', `wrong-bearer-${i}`)).status, 303);
      const waited = await bearer('127.0.0.3', TOKEN);
      assert.equal(waited.status, 429);
      assert.equal(waited.headers['retry-after'], WINDOW_SECONDS);
      assert.equal((await guess('127.0.0.3', TOKEN)).status, 429, 'and the login form is closed to it too');

      now += windowMs - 60_000 - 1;
      assert.equal((await guess('127.0.0.1', TOKEN)).status, 429, 'one millisecond before the window ends');
      now += 1;
      const again = await guess('127.0.0.1', TOKEN);
      assert.equal(again.status, 303, 'the right token, once the window is over');
      assert.match(String(again.headers['set-cookie']), /^tidemark_session=/);
      assert.equal((await guess('127.0.0.1', 'wrong-in-a-new-window')).status, 401, 'a new window');
    } finally {
      await closeServer(server);
    }
  });

  test('an open session keeps working while its address is refused new tokens', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { url, server } = await serveOn(
      dashboardHandler(tm, resolveHandlerOptions({ token: TOKEN }), () => Date.UTC(2030, 0, 1)),
    );
    try {
      const csrf = csrfIn((await get(`${url}login`)).body);
      const login = await from('127.0.0.5', `${url}login`, { form: { csrf, token: TOKEN } });
      const cookie = String(login.headers['set-cookie']).split(';')[0];
      for (let i = 0; i < maxFailures; i++)
        await from('127.0.0.5', url, { headers: { authorization: `Bearer wrong-${i}` } });
      assert.equal(
        (await from('127.0.0.5', url, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
        429,
      );
      assert.equal((await from('127.0.0.5', url, { headers: { cookie } })).status, 200);
    } finally {
      await closeServer(server);
    }
  });

  test('a login returns to the page asked for, and only to a page of this dashboard', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const { url } = await tm.dashboard({ port: 0, token: TOKEN });
    const asked = `/jobs?queue=q&status=pending`;
    const anonymous = await get(`${url}${asked.slice(1)}`);
    assert.equal(anonymous.status, 303);
    const location = anonymous.res.headers.get('location') ?? '';
    assert.equal(location, `/login?next=${encodeURIComponent(asked)}`);
    assert.equal((await get(url)).res.headers.get('location'), '/login', 'the front page needs no next');

    const page = await get(`${url}${location.slice(1)}`);
    assert.equal(page.status, 200);
    assert.ok(
      page.body.includes(`name="next" value="${asked.replace(/&/g, '&amp;')}"`),
      'the form carries it',
    );
    const csrf = csrfIn(page.body);
    const back = await post(`${url}login`, { csrf, token: TOKEN, next: asked });
    assert.equal(back.status, 303);
    assert.equal(back.res.headers.get('location'), asked);
    const cookie = (back.res.headers.get('set-cookie') ?? '').split(';')[0];
    assert.equal((await get(`${url}${asked.slice(1)}`, { cookie })).status, 200);
    const detail = await post(`${url}login`, { csrf, token: TOKEN, next: `/jobs/${id}` });
    assert.equal(detail.res.headers.get('location'), `/jobs/${id}`);

    for (const next of FOREIGN_NEXT) {
      const res = await post(`${url}login`, { csrf, token: TOKEN, next });
      assert.equal(res.status, 303, JSON.stringify(next));
      assert.equal(res.res.headers.get('location'), '/', `${JSON.stringify(next)} is refused`);
      const form = await get(`${url}login?next=${encodeURIComponent(next)}`);
      assert.ok(!form.body.includes('name="next"'), `${JSON.stringify(next)} is not carried by the form`);
    }
    const wrong = await post(`${url}login`, { csrf, token: 'not-the-token-at-all', next: asked });
    assert.equal(wrong.status, 401);
    assert.ok(wrong.body.includes('name="next"'), 'a wrong token keeps the page to return to');
  });

  test('under a base path a login returns only under that base', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { url } = await tm.dashboard({ port: 0, token: TOKEN, basePath: '/ops' });
    const root = url.replace(/ops\/$/, '');
    const anonymous = await get(`${url}jobs?queue=q`);
    assert.equal(
      anonymous.res.headers.get('location'),
      `/ops/login?next=${encodeURIComponent('/ops/jobs?queue=q')}`,
    );
    const csrf = csrfIn((await get(`${url}login`)).body);
    const cases: [string, string][] = [
      ['/ops/jobs?queue=q', '/ops/jobs?queue=q'],
      ['/ops/storage', '/ops/storage'],
      ['/jobs', '/ops/'],
      ['/opsx/jobs', '/ops/'],
      ['/ops', '/ops/'],
      ['/ops/../evil', '/ops/'],
      ['/ops/%2e%2e/evil', '/ops/'],
      ['/ops//evil.com', '/ops/'],
      ['/ops/login', '/ops/'],
      ...FOREIGN_NEXT.map((next): [string, string] => [next, '/ops/']),
    ];
    for (const [next, expected] of cases) {
      const res = await post(`${root}ops/login`, { csrf, token: TOKEN, next });
      assert.equal(res.res.headers.get('location'), expected, JSON.stringify(next));
    }
  });
});

test('returnTarget accepts paths under the base and nothing else', () => {
  assert.equal(returnTarget('', '/jobs/7?x=%2F%2Fa'), '/jobs/7?x=%2F%2Fa');
  assert.equal(
    returnTarget('', '/jobs?q=http://x'),
    '/jobs?q=http://x',
    "'//' in the query is a value, not a host",
  );
  assert.equal(returnTarget('', null), '/');
  assert.equal(returnTarget('', `/${'a'.repeat(2_001)}`), '/');
  for (const next of FOREIGN_NEXT) assert.equal(returnTarget('', next), '/', JSON.stringify(next));
  assert.equal(returnTarget('/t', '/t/jobs'), '/t/jobs');
  assert.equal(returnTarget('/t', '/t/a/../../x'), '/t/');
});
