import assert from 'node:assert/strict';
import { test } from 'node:test';
import { get, seedDashboard } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

/** The href of the live-refresh toggle on a page, decoded from its HTML attribute. */
function toggleHref(body: string, state: 'on' | 'off'): string {
  const match = body.match(new RegExp(`<a href="([^"]+)" data-refresh="${state}">`));
  assert.ok(match, `the page has a toggle that turns refresh ${state}`);
  return match[1].replaceAll('&amp;', '&');
}

function scriptDirective(csp: string): string | undefined {
  return csp
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith('script-src '));
}

describeOnOneDriver('dashboard live refresh', ({ open }) => {
  test('list pages carry an off toggle that round-trips refresh=5 and keeps the other parameters', async () => {
    const tm = await open();
    await seedDashboard(tm);
    const dashboard = await tm.dashboard({ port: 0 });
    const origin = dashboard.url.replace(/\/$/, '');
    for (const path of ['/', '/jobs?queue=mail&status=completed&since=3600', '/queues/mail?window=24h']) {
      const off = await get(origin + path);
      assert.equal(off.status, 200, path);
      assert.match(off.body, /Live refresh: off/, path);
      assert.doesNotMatch(off.body, /<script/i, `${path}: no script while refresh is off`);
      const on = new URL(toggleHref(off.body, 'on'), origin);
      const before = new URL(origin + path);
      assert.equal(on.pathname, before.pathname, path);
      assert.equal(on.searchParams.get('refresh'), '5', path);
      for (const [name, value] of before.searchParams) assert.equal(on.searchParams.get(name), value, path);

      const live = await get(on.href);
      assert.equal(live.status, 200, path);
      assert.match(live.body, /Live refresh: <strong>every 5 s<\/strong>/, path);
      assert.match(live.body, /<script src="\/assets\/refresh\.js" defer><\/script>/, path);
      const back = new URL(toggleHref(live.body, 'off'), origin);
      assert.equal(back.searchParams.get('refresh'), null, path);
      assert.equal(back.pathname + back.search, before.pathname + before.search, `${path} round-trips`);
    }
  });

  test('the job filters keep refresh on, and a bad value is named and leaves it off', async () => {
    const tm = await open();
    await seedDashboard(tm);
    const dashboard = await tm.dashboard({ port: 0 });
    const jobs = await get(`${dashboard.url}jobs?queue=mail&refresh=5`);
    assert.match(jobs.body, /<input type="hidden" name="refresh" value="5">/);
    const bad = await get(`${dashboard.url}jobs?refresh=soon`);
    assert.equal(bad.status, 200);
    assert.match(bad.body, /refresh: expected a whole number of seconds from 2 to 3600; live refresh is off/);
    assert.doesNotMatch(bad.body, /<script/i);
    for (const value of ['1', '3601', '-5', '5.5']) {
      const page = await get(`${dashboard.url}?refresh=${value}`);
      assert.match(page.body, /live refresh is off/, value);
    }
  });

  test('the CSP allows scripts from the dashboard only, and the script is served as JavaScript', async () => {
    const tm = await open();
    const dashboard = await tm.dashboard({ port: 0 });
    const page = await get(`${dashboard.url}?refresh=5`);
    const csp = page.res.headers.get('content-security-policy') ?? '';
    assert.equal(scriptDirective(csp), "script-src 'self'");
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|nonce-|sha256-/);
    const script = await get(`${dashboard.url}assets/refresh.js`);
    assert.equal(script.status, 200);
    assert.equal(script.res.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(script.res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(
      scriptDirective(script.res.headers.get('content-security-policy') ?? ''),
      "script-src 'self'",
    );
    assert.match(script.body, /location\.reload\(\)/);
    assert.match(script.body, /get\('refresh'\)/);
  });
});
