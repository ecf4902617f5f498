import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createTokenHandler } from '../../src/dashboard/index.js';
import type { CallbackToken, Handler, Tidemark } from '../../src/index.js';
import { readTokenLink, signTokenLink, verifyTokenLink } from '../../src/model/token-url.js';
import { rawQuery } from '../support/databases.js';
import { describeOnOneDriver } from '../support/each-driver.js';

const SECRET = 'the-current-key-of-at-least-32-characters';
const OLD = 'the-previous-key-of-at-least-32-characters';
const BASE = 'https://example.test/cb';
const TOKENS = { secrets: [SECRET, OLD], baseUrl: BASE, maxPayloadBytes: 200 };

/**
 * A workflow that makes a token and gives out its URLs: plain, and carrying `{ approved }`.
 * Tokens are kept by job: two jobs run side by side, so they make their tokens in either order.
 */
function approval(urls: Map<string, string>, tokens: Map<string, CallbackToken>): Handler {
  return async (job, ctx) => {
    const token = await ctx.createToken('approval', { timeoutSeconds: 3600 });
    tokens.set(job.id, token);
    urls.set(`${job.id}:plain`, token.url());
    urls.set(`${job.id}:yes`, token.url({ approved: true }));
    return ctx.waitForToken(token);
  };
}

/** The id of the token job `id` made. */
function tokenOf(tokens: Map<string, CallbackToken>, id: string): string {
  const token = tokens.get(id);
  assert.ok(token, `job ${id} made a token`);
  return token.id;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
}

async function tokenState(tm: Tidemark, id: string): Promise<string | undefined> {
  const rows = await rawQuery<{ state: string }>(
    tm,
    `select state from "${tm.schema}".job_tokens where id = $1`,
    [id],
  );
  return rows[0]?.state;
}

describeOnOneDriver('the token handler', ({ openOnClock }) => {
  test('signed links: GET confirms and completes nothing; POST completes once; every forgery is a 400', async (t) => {
    const tm = await openOnClock({ tokens: TOKENS });
    const urls = new Map<string, string>();
    const tokens = new Map<string, CallbackToken>();
    tm.createQueue({ name: 'wf', handler: approval(urls, tokens) });
    const a = await tm.addJob({ queue: 'wf' });
    const b = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const server = createServer(createTokenHandler(tm, { basePath: '/cb' }));
    const base = await listen(server);
    t.after(() => server.close());
    const local = (url: string) => url.replace(BASE, base);
    const yesA = local(urls.get(`${a.id}:yes`) as string);
    const plainB = local(urls.get(`${b.id}:plain`) as string);

    // A link preview (GET) sees a confirm page, escaped, and nothing changes.
    const page = await fetch(yesA);
    assert.equal(page.status, 200);
    const body = await page.text();
    assert.match(body, /<form method="post" action="\/cb\/[0-9a-f-]+\?exp=\d+&amp;d=[\w-]+&amp;sig=[\w-]+">/);
    assert.equal(await tokenState(tm, tokenOf(tokens, a.id)), 'pending');
    assert.equal((await tm.getJob(a.id))?.status, 'waiting');

    // Forgeries: another MAC, another expiry, another payload, job B's token under A's MAC.
    const link = new URL(yesA);
    const sig = link.searchParams.get('sig') as string;
    const forged = (change: (u: URL) => void) => {
      const u = new URL(yesA);
      change(u);
      return u.toString();
    };
    const refusals = [
      forged((u) => u.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`)),
      forged((u) => u.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600))),
      forged((u) => u.searchParams.set('d', Buffer.from('{"approved":false}').toString('base64url'))),
      forged((u) => {
        u.pathname = `/cb/${tokenOf(tokens, b.id)}`;
      }),
      forged((u) => u.searchParams.delete('sig')),
    ];
    const answers = new Set<string>();
    for (const url of refusals) {
      const res = await fetch(url, { method: 'POST' });
      assert.equal(res.status, 400, url);
      answers.add(await res.text());
    }
    assert.equal(answers.size, 1, 'a refusal does not say which check failed');
    assert.equal(await tokenState(tm, tokenOf(tokens, a.id)), 'pending');
    assert.equal(await tokenState(tm, tokenOf(tokens, b.id)), 'pending');

    // The genuine POST completes, with the payload the URL carries.
    const done = await fetch(yesA, { method: 'POST' });
    assert.equal(done.status, 200);
    // A replay changes nothing.
    const again = await fetch(yesA, { method: 'POST' });
    assert.equal(again.status, 409);
    assert.equal((await fetch(yesA)).status, 409);
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(a.id))?.output, { ok: true, data: { approved: true } });
    assert.equal((await tm.getJob(b.id))?.status, 'waiting', "B's token is untouched");
    // The job pages list each job's token with its state (a pending one shown as waiting).
    const { url: dashboard } = await tm.dashboard({ port: 0 });
    const pageOf = async (id: string) => (await fetch(`${dashboard}jobs/${id}`)).text();
    const tokenRow = (id: string, look: string, state: string) =>
      new RegExp(
        `<td class="mono">approval</td><td class="mono small">${id}</td><td><span class="status status-${look}">${state}</span>`,
      );
    assert.match(await pageOf(a.id), tokenRow(tokenOf(tokens, a.id), 'completed', 'completed'));
    assert.match(await pageOf(b.id), tokenRow(tokenOf(tokens, b.id), 'waiting', 'pending'));

    // A web hook posts JSON to a plain link; a body over the cap is refused whole.
    const big = await fetch(plainB, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'x'.repeat(400) }),
    });
    assert.equal(big.status, 413);
    assert.equal(await tokenState(tm, tokenOf(tokens, b.id)), 'pending');
    const hook = await fetch(plainB, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: 'hook' }),
    });
    assert.equal(hook.status, 200);
    assert.deepEqual(await hook.json(), { status: 'completed' });
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(b.id))?.output, { ok: true, data: { from: 'hook' } });
  });

  test('an expired link is 410; the link of a deleted job is 404 and changes nothing', async (t) => {
    const tm = await openOnClock({ tokens: TOKENS });
    const urls = new Map<string, string>();
    const tokens = new Map<string, CallbackToken>();
    tm.createQueue({ name: 'wf', handler: approval(urls, tokens) });
    const a = await tm.addJob({ queue: 'wf' });
    const b = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const server = createServer(createTokenHandler(tm, { basePath: '/cb' }));
    const base = await listen(server);
    t.after(() => server.close());

    await tm.cancelJob(b.id);
    await tm.deleteJob(b.id);
    const gone = await fetch(urls.get(`${b.id}:yes`)?.replace(BASE, base) as string, { method: 'POST' });
    assert.equal(gone.status, 404);
    const rows = await rawQuery(tm, `select 1 from "${tm.schema}".job_tokens`);
    assert.equal(rows.length, 1, "only A's token");

    await tm.clock.advance(3600);
    const late = await fetch(urls.get(`${a.id}:yes`)?.replace(BASE, base) as string, { method: 'POST' });
    assert.equal(late.status, 410);
    assert.equal(await tokenState(tm, tokenOf(tokens, a.id)), 'pending');
  });

  test('a JSON body a framework already parsed (req.body) is the payload', async (t) => {
    const tm = await openOnClock({ tokens: TOKENS });
    const urls = new Map<string, string>();
    const tokens = new Map<string, CallbackToken>();
    tm.createQueue({ name: 'wf', handler: approval(urls, tokens) });
    const a = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const handler = createTokenHandler(tm, { basePath: '/cb' });
    // What Express's json() does before the handler: the stream read, the value on req.body.
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      Object.assign(req, { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      await handler(req, res);
    });
    const base = await listen(server);
    t.after(() => server.close());
    const done = await fetch((urls.get(`${a.id}:plain`) as string).replace(BASE, base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ parsed: true }),
    });
    assert.equal(done.status, 200);
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(a.id))?.output, { ok: true, data: { parsed: true } });
  });

  test('mounted on the dashboard at /tokens, with no login, beside pages that ask for one', async () => {
    const tm = await openOnClock({ tokens: TOKENS });
    const urls = new Map<string, string>();
    const tokens = new Map<string, CallbackToken>();
    tm.createQueue({ name: 'wf', handler: approval(urls, tokens) });
    const a = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const dashboard = await tm.dashboard({ port: 0, token: 'correct-horse-battery-staple' });
    try {
      const link = (urls.get(`${a.id}:plain`) as string).replace(BASE, `${dashboard.url}tokens`);
      assert.equal((await fetch(dashboard.url, { redirect: 'manual' })).status, 303, 'pages ask for a login');
      assert.equal((await fetch(link)).status, 200);
      assert.equal(await tokenState(tm, tokenOf(tokens, a.id)), 'pending');
      const jobPage = await fetch(`${dashboard.url}jobs/${a.id}`, {
        headers: { authorization: 'Bearer correct-horse-battery-staple' },
      });
      assert.match(await jobPage.text(), /waiting for callback token <span class="mono">approval<\/span>/);
      // The confirm page's form: a POST without a body completes with null.
      const done = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      });
      assert.equal(done.status, 200);
      await tm.runUntilIdle();
      assert.deepEqual((await tm.getJob(a.id))?.output, { ok: true, data: null });
    } finally {
      await dashboard.close();
    }
  });
});

test('key rotation: any listed key verifies, the first signs, a dropped key no longer verifies', () => {
  const id = '00000000-0000-4000-8000-000000000001';
  const expires = new Date('2030-01-01T00:00:00Z');
  const parse = (query: string) => readTokenLink(id, new URLSearchParams(query.split('?')[1]));
  const byOld = parse(signTokenLink(OLD, id, expires, '{"a":1}'));
  assert.ok(byOld);
  assert.equal(verifyTokenLink([SECRET, OLD], byOld), true);
  assert.equal(verifyTokenLink([SECRET], byOld), false);
  const byNew = parse(signTokenLink(SECRET, id, expires, null));
  assert.ok(byNew);
  assert.equal(verifyTokenLink([SECRET, OLD], byNew), true);
  assert.equal(byNew.d, null);
});
