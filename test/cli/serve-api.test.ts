import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { captureIo, cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER } from '../support/databases.js';
import { CheckedApiClient } from '../support/openapi-client.js';

const SECRET = 'ci-secret-0123456789';
const TOKENS = JSON.stringify({ ci: { secret: SECRET, scopes: ['enqueue:emails', 'read'] } });

function apiIn(text: string): string {
  const match = text.match(/HTTP API at (http:\/\/127\.0\.0\.1:\d+\/(?:\w+\/)*api\/v1\/)/);
  assert.ok(match, `an API address in: ${text}`);
  return match[1];
}

for (const kind of ONE_DRIVER) {
  describe(`tidemark serve --api [${kind}]`, () => {
    const db = cliDatabase(kind);
    before(async () => {
      await db.seed();
      await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'emails' });
        await tm.listQueues();
      });
    });
    after(() => db.dispose());

    test('serves the API on 127.0.0.1 with the tokens of TIDEMARK_API_TOKENS until Ctrl-C', async () => {
      const io = captureIo({ TIDEMARK_API_TOKENS: TOKENS });
      const running = runCli(['serve', '--api', '--port', '0', ...db.args], io);
      await io.waiting;
      const base = apiIn(io.out());
      const client = new CheckedApiClient(base.replace(/api\/v1\/$/, ''));
      const added = await client.call({
        method: 'POST',
        path: '/jobs',
        token: SECRET,
        json: { queue: 'emails', data: 1 },
      });
      assert.equal(added.status, 201);
      const job = await client.call({ path: `/jobs/${added.body.id}`, token: SECRET });
      assert.equal(job.body.queue, 'emails');
      assert.equal((await client.call({ path: `/jobs/${added.body.id}` })).status, 401);
      io.interrupt();
      assert.equal((await running).code, 0);
      await assert.rejects(fetch(`${base}openapi.json`), 'the server stopped');
    });

    test('tidemark dashboard --api serves it beside the pages', async () => {
      const io = captureIo({ TIDEMARK_API_TOKENS: TOKENS });
      const running = runCli(['dashboard', '--api', '--port', '0', ...db.args], io);
      await io.waiting;
      const base = apiIn(io.out());
      const client = new CheckedApiClient(base.replace(/api\/v1\/$/, ''));
      assert.equal((await client.call({ path: '/jobs?queue=emails', token: SECRET })).status, 200);
      io.interrupt();
      assert.equal((await running).code, 0);
    });

    test('refusals: no --api, no tokens, tokens not JSON (not echoed), a bad scope named', async () => {
      const bare = await runCli(['serve', ...db.args], captureIo({ TIDEMARK_API_TOKENS: TOKENS }));
      assert.equal(bare.code, 2);
      assert.match(bare.io.err(), /tidemark serve --api/);
      const none = await runCli(['serve', '--api', ...db.args]);
      assert.equal(none.code, 2);
      assert.match(none.io.err(), /TIDEMARK_API_TOKENS/);
      const garbled = await runCli(
        ['serve', '--api', ...db.args],
        captureIo({ TIDEMARK_API_TOKENS: `{ci:${SECRET}` }),
      );
      assert.equal(garbled.code, 2);
      assert.doesNotMatch(garbled.io.err(), new RegExp(SECRET));
      const scope = JSON.stringify({ ci: { secret: SECRET, scopes: ['write'] } });
      const bad = await runCli(
        ['serve', '--api', '--port', '0', ...db.args],
        captureIo({ TIDEMARK_API_TOKENS: scope }),
      );
      assert.equal(bad.code, 1);
      assert.match(bad.io.err(), /options\.tokens\.ci\.scopes\[0\]/);
      assert.doesNotMatch(bad.io.err(), new RegExp(SECRET));
    });
  });
}
