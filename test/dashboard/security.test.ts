import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createDashboardHandler } from '../../src/dashboard/index.js';
import { InsecureDashboardError, InvalidOptionError } from '../../src/index.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

const TOKEN = 'correct-horse-battery-staple';

describeOnOneDriver('dashboard security', ({ open }) => {
  test('binds 127.0.0.1 by default and refuses any other address without a token, before listening', async () => {
    const tm = await open();
    const local = await tm.dashboard({ port: 0 });
    assert.match(local.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    await local.close();
    for (const host of ['0.0.0.0', '::', '192.0.2.1']) {
      await assert.rejects(
        tm.dashboard({ host, port: 0 }),
        (error: unknown) => error instanceof InsecureDashboardError && error.code === 'INSECURE_DASHBOARD',
      );
    }
    await assert.rejects(tm.dashboard({ host: '0.0.0.0', token: 'short' }), InvalidOptionError);
    const exposed = await tm.dashboard({ host: '0.0.0.0', port: 0, token: TOKEN });
    assert.match(exposed.url, /^http:\/\/0\.0\.0\.0:\d+\/$/);
    await exposed.close();
  });

  test('a token is asked for: Bearer header, or a login form that sets an HttpOnly SameSite=Strict cookie', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { url } = await tm.dashboard({ port: 0, token: TOKEN });
    const anonymous = await get(url);
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.res.headers.get('location'), '/login');
    assert.equal((await get(url, { authorization: 'Bearer wrong-token-wrong-token' })).status, 303);
    assert.equal((await get(url, { authorization: `Bearer ${TOKEN}x` })).status, 303);
    const bearer = await get(url, { authorization: `Bearer ${TOKEN}` });
    assert.equal(bearer.status, 200);
    assert.match(bearer.body, /<tr data-queue="q">/);

    const login = await get(`${url}login`);
    assert.equal(login.status, 200);
    const csrf = csrfIn(login.body);
    const wrong = await post(`${url}login`, { csrf, token: 'not the token at all' });
    assert.equal(wrong.status, 401);
    assert.match(wrong.body, /That token is not right/);
    assert.equal(wrong.res.headers.get('set-cookie'), null);
    assert.equal(
      (await post(`${url}login`, { csrf: 'forged', token: TOKEN })).status,
      403,
      'login needs its CSRF token',
    );
    const right = await post(`${url}login`, { csrf, token: TOKEN });
    assert.equal(right.status, 303);
    const cookie = right.res.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^tidemark_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    const session = cookie.split(';')[0];
    const page = await get(url, { cookie: session });
    assert.equal(page.status, 200);
    assert.match(page.body, /Log out/);
    const [name, value] = session.split('=');
    const tampered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    assert.equal((await get(url, { cookie: tampered })).status, 303, 'a tampered session is refused');

    const out = await post(`${url}logout`, { csrf: csrfIn(page.body) }, { cookie: session });
    assert.equal(out.status, 303);
    assert.match(out.res.headers.get('set-cookie') ?? '', /Max-Age=0/);
  });

  test('every POST needs the CSRF token of its own session and server; GET never changes anything', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const a = await tm.dashboard({ port: 0, token: TOKEN });
    const b = await tm.dashboard({ port: 0, token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const tokenA = csrfIn((await get(`${a.url}jobs/${id}`, auth)).body);
    const tokenB = csrfIn((await get(`${b.url}jobs/${id}`, auth)).body);
    assert.notEqual(tokenA, tokenB, 'each server has its own secret');
    assert.equal((await get(`${a.url}jobs/${id}/cancel`, auth)).status, 404, 'no action answers GET');
    assert.equal((await post(`${a.url}jobs/${id}/cancel`, {}, auth)).status, 403);
    assert.equal((await post(`${a.url}jobs/${id}/cancel`, { csrf: 'x' }, auth)).status, 403);
    assert.equal((await post(`${a.url}jobs/${id}/cancel`, { csrf: tokenB }, auth)).status, 403);
    const foreign = await post(
      `${a.url}jobs/${id}/cancel`,
      { csrf: tokenA },
      { ...auth, origin: 'https://evil.example' },
    );
    assert.equal(foreign.status, 403, 'a cross-site Origin is refused even with the token');
    assert.equal((await tm.getJob(id))?.status, 'pending', 'nothing changed');
    const ok = await post(`${a.url}jobs/${id}/cancel`, { csrf: tokenA }, auth);
    assert.equal(ok.status, 303);
    assert.equal((await tm.getJob(id))?.status, 'cancelled');
    const noAuth = await post(`${a.url}jobs/${id}/retry`, { csrf: tokenA });
    assert.equal(noAuth.status, 401);
    assert.equal((await tm.getJob(id))?.status, 'cancelled');
  });

  test('readOnly hides every action and refuses them with 403', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    await tm.cancelJob(id);
    const { url } = await tm.dashboard({ port: 0, readOnly: true });
    for (const path of ['', 'jobs', `jobs/${id}`, 'purge', `jobs/${id}/confirm?action=delete`]) {
      const { body } = await get(url + path);
      assert.doesNotMatch(body, /method="post"/, `${path} shows no form`);
      assert.match(body, /read-only/);
    }
    // The refusal comes before the CSRF check, so even a well-formed form is turned away.
    const csrf = 'irrelevant';
    for (const path of [`jobs/${id}/retry`, `jobs/${id}/delete`, 'queues/pause', 'purge/confirm']) {
      const refused = await post(url + path, {
        csrf,
        queue: 'q',
        status: 'cancelled',
        olderThanSeconds: '0',
        confirm: 'yes',
      });
      assert.equal(refused.status, 403, path);
      assert.match(refused.body, /This dashboard is read-only: actions are refused/);
    }
    assert.equal((await tm.getJob(id))?.status, 'cancelled');
    assert.equal((await tm.listQueues())[0].paused, false);
  });

  test('without a token only localhost requests are served (no DNS rebinding, no exposure when mounted)', async () => {
    const tm = await open();
    const { url } = await tm.dashboard({ port: 0 });
    const port = new URL(url).port;
    assert.equal((await rawGet(url, `localhost:${port}`)).status, 200);
    assert.equal((await rawGet(url, `127.0.0.1:${port}`)).status, 200);
    const rebound = await rawGet(url, `attacker.example:${port}`);
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /serves only http:\/\/127\.0\.0\.1 or http:\/\/localhost/);
  });

  test('a mounted handler serves under its base path and leaves other paths to the application', async () => {
    const tm = await open();
    tm.createQueue({ name: 'mounted' });
    const handler = createDashboardHandler(tm, { basePath: '/ops/tidemark' });
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/ops/tidemark')) return void handler(req, res);
      res.end('the application');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await get(`${base}/ops/tidemark/`);
      assert.equal(page.status, 200);
      assert.match(page.body, /href="\/ops\/tidemark\/queues\/mounted"/);
      assert.match(page.body, /href="\/ops\/tidemark\/assets\/style\.css"/);
      assert.equal(
        (await get(`${base}/ops/tidemark/assets/style.css`)).res.headers.get('content-type'),
        'text/css; charset=utf-8',
      );
      assert.equal((await get(`${base}/elsewhere`)).body, 'the application');
      const csrf = csrfIn(page.body);
      const paused = await post(`${base}/ops/tidemark/queues/pause`, { csrf, queue: 'mounted' });
      assert.equal(paused.status, 303);
      assert.equal(paused.res.headers.get('location'), '/ops/tidemark/');
      assert.equal((await tm.listQueues())[0].paused, true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a body parsed by a framework (Express urlencoded) is read from req.body', async () => {
    const tm = await open();
    tm.createQueue({ name: 'express' });
    const handler = createDashboardHandler(tm);
    const server = createServer(async (req, res) => {
      if (req.method === 'POST') {
        let text = '';
        for await (const chunk of req) text += chunk;
        (req as typeof req & { body: unknown }).body = Object.fromEntries(new URLSearchParams(text));
      }
      await handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const csrf = csrfIn((await get(`${base}/`)).body);
      assert.equal((await post(`${base}/queues/pause`, { csrf, queue: 'express' })).status, 303);
      assert.equal((await tm.listQueues())[0].paused, true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A GET with a chosen Host header (fetch does not let a caller set it). */
function rawGet(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
