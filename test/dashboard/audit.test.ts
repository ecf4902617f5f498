import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError } from '../../src/index.js';
import { csrfIn, get, post, RAW_MARKUP, XSS } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';

const ALICE = 'alice-secret-0123456789';
const BOT = 'ops-bot-secret-0123456789';
const PLAIN = 'plain-token-0123456789';

describeOnOneDriver('dashboard: the audit and named tokens', ({ open }) => {
  test("an action through a named token's login or Bearer header is recorded under its name", async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const failed = await insertJob(tm, { queue: 'q', status: 'failed' });
    const { url } = await tm.dashboard({ port: 0, token: PLAIN, tokens: { alice: ALICE, 'ops-bot': BOT } });
    // alice logs in with the form: her session acts as alice.
    const login = await post(`${url}login`, { csrf: csrfIn((await get(`${url}login`)).body), token: ALICE });
    assert.equal(login.status, 303);
    const cookie = (login.res.headers.get('set-cookie') ?? '').split(';')[0];
    const page = await get(`${url}purge`, { cookie });
    assert.equal(
      (await post(`${url}jobs/${failed}/retry`, { csrf: csrfIn(page.body) }, { cookie })).status,
      303,
    );
    // ops-bot calls with its Bearer token.
    const bearer = { authorization: `Bearer ${BOT}` };
    const csrf = csrfIn((await get(`${url}purge`, bearer)).body);
    assert.equal((await post(`${url}queues/pause`, { csrf, queue: 'q' }, bearer)).status, 303);
    // The plain token acts as 'dashboard'.
    const plain = { authorization: `Bearer ${PLAIN}` };
    const plainCsrf = csrfIn((await get(`${url}purge`, plain)).body);
    assert.equal((await post(`${url}queues/resume`, { csrf: plainCsrf, queue: 'q' }, plain)).status, 303);
    const rows = await tm.listAudit();
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.source]),
      [
        ['resume-queue', 'dashboard', 'dashboard'],
        ['pause-queue', 'ops-bot', 'dashboard'],
        ['retry', 'alice', 'dashboard'],
      ],
    );
    // A wrong token is refused and records nothing.
    const wrong = { authorization: 'Bearer not-any-token-at-all' };
    assert.notEqual((await post(`${url}queues/pause`, { csrf, queue: 'q' }, wrong)).status, 303);
    assert.equal((await tm.listAudit()).length, 3);
  });

  test('named tokens are checked: a short secret, a bad name, a secret used twice', async () => {
    const tm = await open();
    const refusedAt = (field: string) => (error: unknown) => {
      assert.ok(error instanceof InvalidOptionError);
      assert.equal(error.field, field);
      assert.doesNotMatch(error.message, /short|0123456789/, 'no secret is repeated');
      return true;
    };
    await assert.rejects(tm.dashboard({ port: 0, tokens: { alice: 'short' } }), refusedAt('tokens.alice'));
    await assert.rejects(tm.dashboard({ port: 0, tokens: { 'a b': ALICE } }), refusedAt('tokens.a b'));
    await assert.rejects(
      tm.dashboard({ port: 0, tokens: { alice: ALICE, bob: ALICE } }),
      refusedAt('tokens.bob'),
    );
    await assert.rejects(
      tm.dashboard({ port: 0, token: ALICE, tokens: { alice: ALICE } }),
      refusedAt('tokens.alice'),
    );
    await assert.rejects(tm.dashboard({ port: 0, tokens: {} }), refusedAt('tokens'));
  });

  test('the Audit page lists actions newest first, filters them, escapes them, and refuses a bad range', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    await tm.pauseQueue('q', { actor: 'alice' });
    await tm.resumeQueue('q', { actor: XSS.queue2, source: 'cli' });
    const { url } = await tm.dashboard({ port: 0 });
    const page = await get(`${url}audit`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<a href="\/audit" class="current">Audit<\/a>/, 'in the navigation');
    const rows = [...page.body.matchAll(/<tr data-audit="(\d+)">([\s\S]*?)<\/tr>/g)];
    assert.equal(rows.length, 2);
    assert.match(rows[0][2], /resume-queue/);
    assert.match(rows[1][2], /<td>alice<\/td>[\s\S]*pause-queue[\s\S]*queue q/);
    for (const raw of RAW_MARKUP) assert.doesNotMatch(page.body, raw);
    const filtered = await get(`${url}audit?actor=alice`);
    assert.equal([...filtered.body.matchAll(/<tr data-audit=/g)].length, 1);
    const byAction = await get(`${url}audit?action=resume-queue`);
    assert.equal([...byAction.body.matchAll(/<tr data-audit=/g)].length, 1);
    const bad = await get(`${url}audit?since=2026-02-02T00:00&until=2026-02-01T00:00`);
    assert.equal(bad.status, 400);
    assert.match(bad.body, /invalid option &#39;since&#39;|invalid option 'since'/);
    const badDate = await get(`${url}audit?until=soon`);
    assert.equal(badDate.status, 400);
    assert.match(badDate.body, /until/);
  });

  test("a bulk action's long filter is shortened on the page and whole in tm.listAudit", async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const ids = Array.from({ length: 200 }, (_, i) => String(100_000 + i));
    await tm.retryJobs({ ids }, { actor: 'alice' });
    const [row] = await tm.listAudit();
    assert.deepEqual(row.target.filter?.ids, ids);
    const { url } = await tm.dashboard({ port: 0 });
    const page = (await get(`${url}audit`)).body;
    const escaped = page.match(/<span class="mono">(\{[^<]*)<\/span>/)?.[1] ?? '';
    const cell = escaped.replaceAll('&quot;', '"');
    assert.ok(cell.endsWith('…'), 'shortened');
    assert.ok(cell.length <= 301, `at most 300 characters and the ellipsis, got ${cell.length}`);
  });

  test('the page keyset-pages by fifty', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    for (let i = 0; i < 51; i++) await tm.pauseKey('q', `k${i}`, { actor: `a${i}` });
    const { url } = await tm.dashboard({ port: 0 });
    const first = await get(`${url}audit`);
    assert.equal([...first.body.matchAll(/<tr data-audit=/g)].length, 50);
    const next = first.body.match(/href="(\/audit\?after=\d+)" rel="next"/);
    assert.ok(next, 'an Older link');
    const second = await get(`${url}${next[1].slice(1)}`);
    const rows = [
      ...second.body.matchAll(/<tr data-audit="\d+"><td class="small">[^<]*<\/td><td>([^<]*)<\/td>/g),
    ];
    assert.deepEqual(
      rows.map((m) => m[1]),
      ['a0'],
    );
  });
});
