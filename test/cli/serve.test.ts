import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { captureIo, cliDatabase, runCli } from '../support/cli.js';
import { ONE_DRIVER } from '../support/databases.js';

function urlIn(text: string): string {
  const match = text.match(/http:\/\/127\.0\.0\.1:\d+\//);
  assert.ok(match, `a dashboard address in: ${text}`);
  return match[0];
}

for (const kind of ONE_DRIVER) {
  describe(`tidemark dashboard and demo --serve [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());

    test('the plain demo exits by itself and says how to see the dashboard', async () => {
      const { code, io } = await runCli(['demo', '--jobs', '10', ...db.args]);
      assert.equal(code, 0, io.err());
      assert.match(io.out(), /All \d+ jobs finished/);
      assert.match(io.out(), /See it in the dashboard: npm run demo -- --serve/);
    });

    test('demo --serve prints the dashboard address and serves it until Ctrl-C', async () => {
      const io = captureIo();
      const running = runCli(['demo', '--jobs', '10', '--serve', '--port', '0', ...db.args], io);
      await io.waiting;
      const url = urlIn(io.out());
      assert.match(io.out(), /Dashboard: http:\/\/127\.0\.0\.1:\d+\/ {2}\(Ctrl-C to stop\)/);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /demo\.orders/);
      io.interrupt();
      assert.equal((await running).code, 0);
      await assert.rejects(fetch(url), 'the server stopped');
    });

    test('tidemark dashboard serves the database until Ctrl-C; read-only hides actions', async () => {
      const io = captureIo();
      const running = runCli(['dashboard', '--port', '0', '--read-only', ...db.args], io);
      await io.waiting;
      assert.match(
        io.out(),
        /Tidemark dashboard at http:\/\/127\.0\.0\.1:\d+\/ \(read-only\)\. Ctrl-C to stop\./,
      );
      const url = urlIn(io.out());
      const body = await (await fetch(`${url}jobs?queue=demo.emails`)).text();
      assert.match(body, /data-job-id="\d+"/);
      assert.doesNotMatch(body, /<form method="post"/);
      io.interrupt();
      assert.equal((await running).code, 0);
    });

    test('named tokens from TIDEMARK_DASHBOARD_TOKENS: each logs in, its actions recorded under its name', async () => {
      const secret = 'alice-secret-0123456789';
      const io = captureIo({ TIDEMARK_DASHBOARD_TOKENS: `alice=${secret},ops-bot=ops-bot-secret-0123456` });
      const running = runCli(['dashboard', '--port', '0', ...db.args], io);
      await io.waiting;
      assert.match(io.out(), /\(token required\)/);
      const url = urlIn(io.out());
      assert.equal((await fetch(url, { redirect: 'manual' })).status, 303, 'a token is asked for');
      const auth = { authorization: `Bearer ${secret}` };
      const page = await (await fetch(`${url}purge`, { headers: auth })).text();
      const csrf = page.match(/name="csrf" value="([^"]+)"/)?.[1] ?? '';
      const paused = await fetch(`${url}queues/pause`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf, queue: 'demo.emails' }),
        redirect: 'manual',
      });
      assert.equal(paused.status, 303);
      io.interrupt();
      assert.equal((await running).code, 0);
      const audit = await runCli(['audit', '--json', '--action', 'pause-queue', ...db.args]);
      const { actions } = JSON.parse(audit.io.out()) as { actions: { actor: string; source: string }[] };
      assert.deepEqual(
        actions.map((a) => [a.actor, a.source]),
        [['alice', 'dashboard']],
      );
      const bad = await runCli(
        ['dashboard', '--port', '0', ...db.args],
        captureIo({ TIDEMARK_DASHBOARD_TOKENS: 'alice=short' }),
      );
      assert.equal(bad.code, 1);
      assert.match(bad.io.err(), /tokens\.alice/);
      assert.doesNotMatch(bad.io.err(), /short/);
    });

    test('dashboard on another address without a token is refused with exit 1', async () => {
      const { code, io } = await runCli(['dashboard', '--host', '0.0.0.0', '--port', '0', ...db.args]);
      assert.equal(code, 1);
      assert.match(io.err(), /will not listen on '0\.0\.0\.0' without a token/);
    });
  });
}
