import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { dashboardHandler } from '../../src/dashboard/handler.js';
import { resolveHandlerOptions } from '../../src/dashboard/options.js';
import { DEFAULT_THROTTLE, LoginThrottle } from '../../src/http/login-throttle.js';
import { apiSetup, createApiHandler, serveApiRequest } from '../../src/http-api/handler.js';
import { serveApi } from '../../src/http-api/server.js';
import { InvalidOptionError, silentLogger, type Tidemark } from '../../src/index.js';
import { closeSharedDatabases, dropSchema, ONE_DRIVER, openOn } from '../support/databases.js';
import { waitForStatus } from '../support/jobs.js';
import { closeServer, from, serveOn } from '../support/local-http.js';
import { CheckedApiClient } from '../support/openapi-client.js';

const SECRET = 'reader-secret-0123456789';
const TOKENS = { reader: { secret: SECRET, scopes: ['read' as const] } };
const { maxFailures, windowMs } = DEFAULT_THROTTLE;

for (const kind of ONE_DRIVER) {
  describe(`the HTTP API, mounted and guarded [${kind}]`, () => {
    let tm: Tidemark;
    let pending: string;

    before(async () => {
      tm = await openOn(kind, { logger: silentLogger });
      tm.createQueue({ name: 'q' });
      pending = (await tm.addJob({ queue: 'q' })).id;
    });
    after(async () => {
      await tm.close();
      await dropSchema(kind, tm.schema);
      await closeSharedDatabases();
    });

    test("the dashboard's api option serves /api/v1 beside the pages; the API asks for its own tokens even where the pages are open", async () => {
      const { url, server } = await serveOn(
        dashboardHandler(tm, resolveHandlerOptions({ basePath: '/ops', api: { tokens: TOKENS } })),
      );
      try {
        const client = new CheckedApiClient(`${url}ops/`);
        assert.equal((await fetch(`${url}ops/`)).status, 200, 'the pages, open on this machine');
        assert.equal((await client.call({ path: `/jobs/${pending}` })).status, 401, 'the API, not open');
        const job = await client.call({ path: `/jobs/${pending}`, token: SECRET });
        assert.deepEqual([job.status, job.body.id], [200, pending]);
        assert.equal((await client.call({ path: '/openapi.json' })).status, 200);
      } finally {
        await closeServer(server);
      }
    });

    test("the dashboard's token opens no API route, an API token no page; wrong tokens on either count against one window", async () => {
      const pages = 'dashboard-secret-0123456789';
      const { url, server } = await serveOn(
        dashboardHandler(tm, resolveHandlerOptions({ token: pages, api: { tokens: TOKENS } })),
      );
      try {
        const client = new CheckedApiClient(url);
        assert.equal(
          (await client.call({ path: `/jobs/${pending}`, token: pages, from: '127.0.0.20' })).status,
          401,
        );
        const page = await from('127.0.0.21', url, { headers: { authorization: `Bearer ${SECRET}` } });
        assert.equal(page.status, 303, 'an API token is sent to the login form');
        for (let i = 0; i < maxFailures - 1; i++) {
          assert.equal(
            (await client.call({ path: '/jobs', token: `api-guess-${i}-0123456789`, from: '127.0.0.22' }))
              .status,
            401,
          );
        }
        const last = await from('127.0.0.22', url, {
          headers: { authorization: 'Bearer page-guess-0123456789' },
        });
        assert.equal(last.status, 303, 'the tenth guess, at the pages');
        assert.equal((await client.call({ path: '/jobs', token: SECRET, from: '127.0.0.22' })).status, 429);
        assert.equal(
          (await from('127.0.0.22', url, { headers: { authorization: `Bearer ${pages}` } })).status,
          429,
        );
      } finally {
        await closeServer(server);
      }
    });

    test('without the api option the dashboard has no API', async () => {
      const { url, server } = await serveOn(dashboardHandler(tm, resolveHandlerOptions({})));
      try {
        const res = await fetch(`${url}api/v1/openapi.json`);
        assert.equal(res.status, 404);
        assert.match(res.headers.get('content-type') ?? '', /text\/html/);
      } finally {
        await closeServer(server);
      }
    });

    test('wrong tokens are limited per address per window (429 with Retry-After, even for the right token), as the dashboard login is', async () => {
      let now = Date.UTC(2030, 0, 1);
      const setup = apiSetup({ tokens: TOKENS }, 'api', new LoginThrottle(() => now));
      const { url, server } = await serveOn((req: IncomingMessage, res: ServerResponse) =>
        serveApiRequest(tm, setup, req, res, new URL(req.url ?? '/', 'http://api').pathname),
      );
      try {
        const client = new CheckedApiClient(url);
        const read = (from: string, token: string) => client.call({ path: `/jobs/${pending}`, token, from });
        for (let i = 0; i < maxFailures; i++)
          assert.equal((await read('127.0.0.7', `wrong-guess-${i}-0123456`)).status, 401);
        now += 60_000;
        const refused = await read('127.0.0.7', SECRET);
        assert.equal(refused.status, 429);
        assert.equal(refused.body.code, 'TOO_MANY_FAILED_AUTHENTICATIONS');
        assert.equal(refused.headers['retry-after'], String(windowMs / 1000 - 60));
        assert.equal((await read('127.0.0.8', SECRET)).status, 200, 'another address goes on');
        assert.equal(
          (await client.call({ path: `/jobs/${pending}`, from: '127.0.0.7' })).status,
          401,
          'no token is no guess',
        );
        now += windowMs;
        assert.equal((await read('127.0.0.7', SECRET)).status, 200, 'after the window');
      } finally {
        await closeServer(server);
      }
    });

    test('a wait for a result ends when the client disconnects', async () => {
      const handler = createApiHandler(tm, { tokens: TOKENS });
      let handled: Promise<void> | undefined;
      const { url, server } = await serveOn((req: IncomingMessage, res: ServerResponse) => {
        handled = handler(req, res);
        return handled;
      });
      try {
        const leave = new AbortController();
        const asked = fetch(`${url}api/v1/jobs/${pending}/result?wait=60`, {
          headers: { authorization: `Bearer ${SECRET}` },
          signal: leave.signal,
        }).catch(() => 'left');
        await waitForStatus(tm, pending, 'pending');
        while (handled === undefined) await new Promise((resolve) => setImmediate(resolve));
        leave.abort();
        assert.equal(await asked, 'left');
        // Were the wait not ended by the disconnect, this would hang for its 60 seconds and time out.
        await handled;
      } finally {
        await closeServer(server);
      }
    });

    test('its own server binds 127.0.0.1 by default; bad options are refused naming the field, secrets never shown', async () => {
      const api = await serveApi(tm, { port: 0, tokens: TOKENS });
      try {
        assert.equal(
          api.server.address() && (api.server.address() as { address: string }).address,
          '127.0.0.1',
        );
      } finally {
        await api.close();
      }
      const refusals: [unknown, string][] = [
        [{ tokens: {} }, 'options.tokens'],
        [{ tokens: { ci: { secret: 'short', scopes: ['read'] } } }, 'options.tokens.ci.secret'],
        [{ tokens: { ci: { secret: SECRET, scopes: ['write'] } } }, 'options.tokens.ci.scopes[0]'],
        [{ tokens: { ci: { secret: SECRET, scopes: [] } } }, 'options.tokens.ci.scopes'],
        [{ tokens: { ci: { secret: SECRET, scopes: ['read'], extra: 1 } } }, 'options.tokens.ci.extra'],
        [{ tokens: { 'a b': { secret: SECRET, scopes: ['read'] } } }, 'options.tokens.a b'],
        [{ tokens: TOKENS, maxBodyBytes: 10 }, 'options.maxBodyBytes'],
      ];
      for (const [options, field] of refusals) {
        assert.throws(
          () => createApiHandler(tm, options as never),
          (error: unknown) =>
            error instanceof InvalidOptionError && error.field === field && !error.message.includes('short'),
          field,
        );
      }
      assert.throws(
        () =>
          resolveHandlerOptions({
            api: { tokens: { ci: { secret: SECRET, scopes: ['enqueue:'] } } } as never,
          }),
        (error: unknown) => error instanceof InvalidOptionError && error.field === 'api.tokens.ci.scopes[0]',
      );
    });
  });
}
