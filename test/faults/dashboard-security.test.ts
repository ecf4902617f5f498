import assert from 'node:assert/strict';
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { test } from 'node:test';
import type { Tidemark } from '../../src/index.js';
import { sharedChromium } from '../support/browser.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { deferred, fastWorker, waitForStatus } from '../support/jobs.js';
import { rowCounts, sqlOf } from './support/consistency.js';
import { faultSchema } from './support/pg.js';

const TOKEN = 'fault-suite-token-0123456789';

/** Everything an action could change: row counts, every job's status, every queue's pause. */
async function state(tm: Tidemark): Promise<string> {
  const sql = sqlOf(tm);
  const jobs = await sql(`select id, status from "${tm.schema}".jobs order by id`);
  const queues = await sql(`select name, paused from "${tm.schema}".queues order by name`);
  return JSON.stringify({ counts: await rowCounts(sql, tm.schema), jobs, queues });
}

interface Targets {
  pending: string;
  paused: string;
  finished: string;
}

async function targets(tm: Tidemark): Promise<Targets> {
  tm.createQueue({ name: 'q' });
  const pending = (await tm.addJob({ queue: 'q', data: { secret: 'job-data-marker' } })).id;
  const paused = (await tm.addJob({ queue: 'q' })).id;
  await tm.pauseJob(paused);
  const finished = (await tm.addJob({ queue: 'q' })).id;
  await tm.cancelJob(finished);
  return { pending, paused, finished };
}

/** Every mutation the dashboard offers, with a form that would succeed given the right credentials. */
function actions(t: Targets): [string, Record<string, string>][] {
  return [
    [`jobs/${t.finished}/retry`, {}],
    [`jobs/${t.pending}/cancel`, {}],
    [`jobs/${t.pending}/pause`, {}],
    [`jobs/${t.paused}/resume`, {}],
    [`jobs/${t.finished}/delete`, {}],
    [`jobs/${t.finished}/delete-subtree`, {}],
    ['queues/pause', { queue: 'q' }],
    ['queues/resume', { queue: 'q' }],
    ['purge/preview', { status: 'cancelled', olderThanSeconds: '0' }],
    ['purge/confirm', { status: 'cancelled', olderThanSeconds: '0', confirm: 'yes' }],
  ];
}

function pages(t: Targets): string[] {
  return [
    '',
    'jobs',
    'jobs?status=pending',
    `jobs/${t.pending}`,
    `jobs/${t.finished}/confirm?action=delete`,
    'retention',
    'retention?preview=1',
    'purge',
    'storage',
    'workers',
    // the same pages reached by odd spellings of their paths
    '/jobs',
    './jobs',
    `jobs/${t.pending}/`,
    `jobs/x/../${t.pending}`,
    'jobs%2F',
  ];
}

/** Credentials that are not the token. */
const WRONG: [string, Record<string, string>, string?][] = [
  ['no credentials', {}],
  ['a wrong bearer token', { authorization: 'Bearer wrong-token-wrong-token-wrong' }],
  ['the token as a prefix', { authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
  ['the token with a suffix', { authorization: `Bearer ${TOKEN}0` }],
  ['the token in upper case', { authorization: `Bearer ${TOKEN.toUpperCase()}` }],
  ['the token as basic auth', { authorization: `Basic ${Buffer.from(`admin:${TOKEN}`).toString('base64')}` }],
  ['a forged session cookie', { cookie: 'tidemark_session=forged.session.value' }],
  ['the token in the query string', {}, `token=${TOKEN}`],
];

function withQuery(url: string, query?: string): string {
  if (!query) return url;
  return `${url}${url.includes('?') ? '&' : '?'}${query}`;
}

/** A raw request with any method, Host and Origin (fetch refuses some of them). */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = '',
): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method,
        headers,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

// Both suites here run on one driver: whether a request is refused and how a page escapes what
// it shows do not depend on the driver, and the actions and reads behind the pages are tested on
// both (test/jobs, test/storage).
describeOnOneDriver('dashboard security under attack', ({ open }) => {
  test('with a token set, no page and no action answers without it, however it is asked', async () => {
    const tm = await open({ schema: faultSchema() });
    const t = await targets(tm);
    const { url, close } = await tm.dashboard({ port: 0, token: TOKEN });
    try {
      // The right token opens the pages: the refusals below are about the credentials.
      assert.equal((await get(`${url}jobs/${t.pending}`, { authorization: `Bearer ${TOKEN}` })).status, 200);
      const before = await state(tm);
      // Once enough wrong credentials came from one address every request waits (429), so the
      // loop further down soon meets the throttle alone. Each credential is first tried on a
      // dashboard of its own, where nothing has been refused yet and its own check decides.
      const judged: string[] = [];
      for (const [label, headers, query] of WRONG) {
        const fresh = await tm.dashboard({ port: 0, token: TOKEN });
        try {
          const page = await get(withQuery(`${fresh.url}jobs/${t.pending}`, query), headers);
          const action = await post(
            withQuery(`${fresh.url}jobs/${t.pending}/cancel`, query),
            { csrf: 'x' },
            headers,
          );
          // A page refused redirects to the login form; an action refused answers 401 or 403
          // (one accepted redirects with 303).
          if (page.status === 429 || page.status < 300 || /job-data-marker|data-queue/.test(page.body)) {
            judged.push(`GET with ${label}: ${page.status}`);
          }
          if (action.status === 429 || action.status < 400)
            judged.push(`POST with ${label}: ${action.status}`);
        } finally {
          await fresh.close();
        }
      }
      assert.deepEqual(judged, [], 'each wrong credential is refused on its own, not by the throttle');
      const leaks: string[] = [];
      for (const [label, headers, query] of WRONG) {
        for (const path of pages(t)) {
          const res = await get(withQuery(url + path, query), headers);
          if (res.status === 200 || /job-data-marker|data-queue/.test(res.body)) {
            leaks.push(`GET ${path} with ${label}: ${res.status}`);
          }
        }
        for (const [path, form] of actions(t)) {
          const res = await post(withQuery(url + path, query), { ...form, csrf: 'x' }, headers);
          if (res.status < 400) leaks.push(`POST ${path} with ${label}: ${res.status}`);
        }
      }
      assert.deepEqual(leaks, []);
      assert.equal(await state(tm), before, 'an unauthenticated request changed something');
      // So many wrong tokens from one address make it wait: now even the right one is refused.
      assert.equal((await get(`${url}jobs/${t.pending}`, { authorization: `Bearer ${TOKEN}` })).status, 429);
    } finally {
      await close();
    }
  });

  test('cross-site POSTs are refused on every action, with a session or without a token', async () => {
    const tm = await open({ schema: faultSchema() });
    const t = await targets(tm);
    const secured = await tm.dashboard({ port: 0, token: TOKEN });
    const local = await tm.dashboard({ port: 0 });
    const other = await tm.dashboard({ port: 0, token: TOKEN });
    try {
      const login = await get(`${secured.url}login`);
      const signedIn = await post(`${secured.url}login`, { csrf: csrfIn(login.body), token: TOKEN });
      const session = { cookie: (signedIn.res.headers.get('set-cookie') ?? '').split(';')[0] };
      assert.match(session.cookie, /^tidemark_session=/);
      const csrf = csrfIn((await get(`${secured.url}jobs/${t.pending}`, session)).body);
      const otherCsrf = csrfIn(
        (await get(`${other.url}jobs/${t.pending}`, { authorization: `Bearer ${TOKEN}` })).body,
      );
      const localCsrf = csrfIn((await get(`${local.url}jobs/${t.pending}`)).body);
      const before = await state(tm);
      const accepted: string[] = [];
      const attempts: [string, string, Record<string, string>, string | null][] = [
        ['no CSRF token', secured.url, session, null],
        ['an empty CSRF token', secured.url, session, ''],
        ["another server's CSRF token", secured.url, session, otherCsrf],
        ['a foreign Origin', secured.url, { ...session, origin: 'https://evil.example' }, csrf],
        ['a foreign Origin, no token', local.url, { origin: 'https://evil.example' }, null],
        ['a foreign Origin on the tokenless server', local.url, { origin: 'http://evil.example' }, localCsrf],
        ['no CSRF token on the tokenless server', local.url, {}, null],
      ];
      for (const [label, base, headers, token] of attempts) {
        for (const [path, form] of actions(t)) {
          const fields = token === null ? form : { ...form, csrf: token };
          const res = await post(base + path, fields, headers);
          if (res.status < 400) accepted.push(`${path} with ${label}: ${res.status}`);
        }
      }
      // A form a foreign page can send without a preflight, as text/plain.
      for (const [path] of actions(t)) {
        const res = await rawRequest(
          secured.url + path,
          'POST',
          { ...session, origin: 'https://evil.example', 'content-type': 'text/plain' },
          `csrf=${csrf}`,
        );
        if (res.status < 400) accepted.push(`${path} as text/plain: ${res.status}`);
      }
      // Login CSRF: a foreign page logging the victim into the attacker's session.
      const forgedLogin = await post(
        `${secured.url}login`,
        { token: TOKEN },
        { origin: 'https://evil.example' },
      );
      if (forgedLogin.status < 400) accepted.push(`login without its CSRF token: ${forgedLogin.status}`);
      assert.deepEqual(accepted, []);
      assert.equal(await state(tm), before, 'a refused POST changed something');
      // The same action with the session's own token and no foreign Origin goes through.
      const ok = await post(`${secured.url}jobs/${t.pending}/cancel`, { csrf }, session);
      assert.equal(ok.status, 303);
      assert.equal((await tm.getJob(t.pending))?.status, 'cancelled');
    } finally {
      await Promise.all([secured.close(), local.close(), other.close()]);
    }
  });

  test('methods other than GET, HEAD and POST change nothing', async () => {
    const tm = await open({ schema: faultSchema() });
    const t = await targets(tm);
    const { url, close } = await tm.dashboard({ port: 0 });
    try {
      const before = await state(tm);
      for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        for (const [path] of actions(t)) {
          const res = await rawRequest(url + path, method, { host: new URL(url).host });
          assert.equal(res.status, 405, `${method} ${path}`);
        }
      }
      assert.equal(await state(tm), before);
    } finally {
      await close();
    }
  });

  test('by default the server listens on 127.0.0.1 only: other addresses of this machine get no answer', async () => {
    const tm = await open({ schema: faultSchema() });
    const { url, close } = await tm.dashboard({ port: 0 });
    try {
      const port = new URL(url).port;
      assert.equal((await get(url)).status, 200);
      const others = Object.values(networkInterfaces())
        .flat()
        // link-local IPv6 needs a zone id to dial, so those are left out
        .filter((a) => a && !a.internal && !a.address.startsWith('fe80:'))
        .map((a) => (a?.family === 'IPv6' ? `[${a.address.split('%')[0]}]` : a?.address));
      // ::1 is loopback too, but a different socket: a server bound to 127.0.0.1 does not answer it.
      for (const host of ['[::1]', ...others]) {
        const outcome = await fetch(`http://${host}:${port}/`, { redirect: 'manual' }).then(
          (res) => `answered ${res.status}`,
          (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? String(error),
        );
        assert.match(
          outcome,
          /ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH|EHOSTUNREACH/,
          `http://${host}:${port}/ ${outcome}`,
        );
      }
    } finally {
      await close();
    }
  });
});

describeOnOneDriver('dashboard in a browser: hostile values nowhere executed', ({ open }) => {
  const browser = sharedChromium();

  const mark = (where: string) =>
    `"><img src=x onerror="window.__xss='${where}'"><script>window.__xss='${where}'</script></textarea><svg onload="window.__xss='${where}'">`;

  test('worker ids, dedupe keys, outputs, errors, data keys and payloads render as text', async () => {
    const tm = await open({ schema: faultSchema() });
    const hold = deferred();
    class HostileError extends Error {
      constructor() {
        super(mark('error-message'));
        this.name = mark('error-name');
      }
    }
    tm.createQueue({
      name: 'evil',
      maxAttempts: 1,
      signals: { [mark('signal-name')]: 2 },
      handler: async (job) => {
        const data = job.data as { kind: string };
        if (data.kind === 'hold') await hold.promise;
        if (data.kind === 'throw') throw new HostileError();
        return { [mark('output-key')]: mark('output-value') };
      },
    });
    const held = (await tm.addJob({ queue: 'evil', data: { kind: 'hold' } })).id;
    const thrown = (await tm.addJob({ queue: 'evil', data: { kind: 'throw' } })).id;
    const output = (
      await tm.addJob({ queue: 'evil', data: { kind: 'out', [mark('data-key')]: mark('data-value') } })
    ).id;
    const unique = (
      await tm.addJob({ queue: 'evil', data: { kind: 'later' }, unique: mark('unique'), delaySeconds: 3_600 })
    ).id;
    const idem = (
      await tm.addJob({
        queue: 'evil',
        data: { kind: 'later2' },
        idempotencyKey: { key: mark('idem'), ttlSeconds: 3_600 },
        delaySeconds: 3_600,
      })
    ).id;
    await tm.signal(unique, mark('signal-name'), { [mark('payload-key')]: mark('payload-value') });
    const worker = fastWorker(tm, { id: mark('worker-id') });
    await worker.start();
    const { url, close } = await tm.dashboard({ port: 0 });
    const page = await browser().newPage();
    const problems: string[] = [];
    page.on('dialog', (dialog) => {
      problems.push(`dialog ${dialog.message()}`);
      void dialog.dismiss();
    });
    try {
      await waitForStatus(tm, held, 'active');
      await waitForStatus(tm, thrown, 'failed');
      await waitForStatus(tm, output, 'completed');
      for (const path of [
        '',
        'jobs',
        'jobs?queue=evil',
        ...[held, thrown, output, unique, idem].map((id) => `jobs/${id}`),
        'retention',
        'storage',
        'purge',
      ]) {
        const response = await page.goto(url + path);
        assert.equal(response?.status(), 200, path);
        const flag = await page.evaluate(() => (globalThis as { __xss?: unknown }).__xss);
        assert.equal(flag, undefined, `script ran on ${path}`);
        const html = await page.content();
        assert.doesNotMatch(html, /<img src="?x|<script>window|<svg onload/i, `raw markup on ${path}`);
      }
      // The hostile worker id was on the page, as text.
      await page.goto(`${url}jobs/${held}`);
      assert.ok((await page.textContent('body'))?.includes(`window.__xss='worker-id'`));
      assert.deepEqual(problems, []);
    } finally {
      hold.resolve();
      await page.close();
      await worker.stop();
      await close();
    }
  });
});
