import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RunningApi, serveApi } from '../../src/http-api/index.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { closeSharedDatabases, dropSchema, ONE_DRIVER, openOn } from '../support/databases.js';
import { deferred, fastWorker, waitForStatus } from '../support/jobs.js';
import { CheckedApiClient } from '../support/openapi-client.js';

const CI = 'ci-secret-0123456789';
const READER = 'reader-secret-0123456789';
const SIGNALER = 'signaler-secret-0123456789';
const ADMIN = 'admin-secret-0123456789';
const ANY_QUEUE = 'any-queue-secret-0123456789';

const TOKENS = {
  ci: { secret: CI, scopes: ['enqueue:emails', 'read'] },
  reader: { secret: READER, scopes: ['read'] },
  signaler: { secret: SIGNALER, scopes: ['signal:flows'] },
  ops: { secret: ADMIN, scopes: ['admin'] },
  loader: { secret: ANY_QUEUE, scopes: ['enqueue:*'] },
} as const;

/** The body limit of this file's server: small, so a body over it stays small too. */
const MAX_BODY = 4096;

for (const kind of ONE_DRIVER) {
  describe(`the HTTP API [${kind}]`, () => {
    let tm: Tidemark;
    let api: RunningApi;
    let client: CheckedApiClient;
    const release = deferred();
    const jobCount = async (queue: string) => (await tm.listJobs({ queue, limit: 1000 })).jobs.length;

    before(async () => {
      tm = await openOn(kind, { logger: silentLogger });
      tm.createQueue({ name: 'emails', handler: async (job) => ({ sent: job.data }) });
      tm.createQueue({ name: 'slow', handler: async () => release.promise.then(() => 'done') });
      tm.createQueue({
        name: 'broken',
        maxAttempts: 1,
        handler: async () => Promise.reject(new Error('boom')),
      });
      tm.createQueue({
        name: 'flows',
        signals: { approve: 1 },
        handler: async (_job, ctx) => ctx.waitForSignal('approve'),
      });
      tm.createQueue({ name: 'other' });
      api = await serveApi(tm, { port: 0, tokens: TOKENS, maxBodyBytes: MAX_BODY });
      client = new CheckedApiClient(api.url);
    });
    after(async () => {
      await api.close();
      await tm.close();
      await dropSchema(kind, tm.schema);
      await closeSharedDatabases();
    });

    test('its own server binds 127.0.0.1 unless told otherwise, and serves the document to anyone', async () => {
      assert.match(api.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      const doc = await client.call({ path: '/openapi.json' });
      assert.equal(doc.status, 200);
      assert.deepEqual(doc.body, client.document);
    });

    test('enqueue one: 201 with its id, and the job reads back as sent', async () => {
      const added = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        json: { queue: 'emails', data: { to: 'a@example.com' }, priority: 5, tags: ['signup'] },
      });
      assert.equal(added.status, 201);
      assert.equal(added.body.deduplicated, false);
      const job = await client.call({ path: `/jobs/${added.body.id}`, token: CI });
      assert.equal(job.status, 200);
      assert.deepEqual(
        [job.body.queue, job.body.data, job.body.priority, job.body.tags],
        ['emails', { to: 'a@example.com' }, 5, ['signup']],
      );
    });

    test('Idempotency-Key: the same key returns the first job (200, deduplicated) and adds nothing; with idempotencyKey in the body too it is refused', async () => {
      const send = () =>
        client.call({
          method: 'POST',
          path: '/jobs',
          token: CI,
          headers: { 'idempotency-key': 'order-7' },
          json: { queue: 'emails', data: 7 },
        });
      const first = await send();
      assert.equal(first.status, 201);
      const before = await jobCount('emails');
      const again = await send();
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, { id: first.body.id, deduplicated: true });
      assert.equal(await jobCount('emails'), before, 'nothing added');
      const both = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        headers: { 'idempotency-key': 'order-8' },
        json: { queue: 'emails', idempotencyKey: { key: 'order-8', ttlSeconds: 60 } },
      });
      assert.equal(both.status, 400);
      assert.equal(both.body.code, 'INVALID_OPTION');
      assert.equal(both.body.details.field, 'Idempotency-Key');
      assert.equal(await jobCount('emails'), before);
    });

    test('enqueue many: 201 all at once; one job outside the scope refuses the batch (403), an unknown queue too (422), and an Idempotency-Key header (400): nothing added', async () => {
      const added = await client.call({
        method: 'POST',
        path: '/jobs/batch',
        token: CI,
        json: {
          jobs: [
            { queue: 'emails', data: 1 },
            { queue: 'emails', data: 2, idempotencyKey: { key: 'b-2', ttlSeconds: 60 } },
          ],
        },
      });
      assert.equal(added.status, 201);
      assert.equal(added.body.jobs.length, 2);
      const before = await jobCount('emails');
      const outside = await client.call({
        method: 'POST',
        path: '/jobs/batch',
        token: CI,
        json: { jobs: [{ queue: 'emails' }, { queue: 'other' }] },
      });
      assert.equal(outside.status, 403);
      assert.equal(outside.body.code, 'FORBIDDEN');
      assert.match(outside.body.detail, /"other" \(jobs\[1\]\.queue\).*'enqueue:other'/);
      const unknown = await client.call({
        method: 'POST',
        path: '/jobs/batch',
        token: ANY_QUEUE,
        json: { jobs: [{ queue: 'emails' }, { queue: 'no-such-queue' }] },
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.code, 'QUEUE_NOT_FOUND');
      const keyed = await client.call({
        method: 'POST',
        path: '/jobs/batch',
        token: CI,
        headers: { 'idempotency-key': 'k' },
        json: { jobs: [{ queue: 'emails' }] },
      });
      assert.equal(keyed.status, 400);
      assert.equal(keyed.body.details.field, 'Idempotency-Key');
      assert.equal(await jobCount('emails'), before, 'nothing added by any of them');
      assert.equal(await jobCount('other'), 0);
    });

    test('scopes: a queue the token does not cover, a read-only token, an enqueue token asking to cancel: 403 problem details, nothing written', async () => {
      const other = await client.call({ method: 'POST', path: '/jobs', token: CI, json: { queue: 'other' } });
      assert.equal(other.status, 403);
      assert.deepEqual(
        [other.body.type, other.body.title, other.body.code],
        ['urn:tidemark:problem:FORBIDDEN', 'Forbidden', 'FORBIDDEN'],
      );
      assert.match(other.body.detail, /'ci' may not add jobs to the queue "other"/);
      const reader = await client.call({
        method: 'POST',
        path: '/jobs',
        token: READER,
        json: { queue: 'emails' },
      });
      assert.equal(reader.status, 403);
      const star = await client.call({
        method: 'POST',
        path: '/jobs',
        token: ANY_QUEUE,
        json: { queue: 'other' },
      });
      assert.equal(star.status, 201, 'enqueue:* covers every queue');
      const { id } = star.body;
      assert.equal(
        (await client.call({ method: 'POST', path: `/jobs/${id}/cancel`, token: CI })).status,
        403,
      );
      assert.equal(
        (await client.call({ path: `/jobs/${id}`, token: ANY_QUEUE })).status,
        403,
        'enqueue is no read',
      );
      assert.equal((await tm.getJob(id))?.status, 'pending');
    });

    test('401 without a token or with a wrong one (a cookie is no token), with WWW-Authenticate', async () => {
      const none = await client.call({ path: '/jobs' });
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'UNAUTHORIZED');
      assert.match(String(none.headers['www-authenticate']), /^Bearer /);
      assert.equal((await client.call({ path: '/jobs', token: 'not-a-token-of-this-api' })).status, 401);
      assert.equal(
        (await client.call({ path: '/jobs', headers: { cookie: `tidemark_session=${ADMIN}` } })).status,
        401,
      );
      const before = await jobCount('emails');
      const post = await client.call({
        method: 'POST',
        path: '/jobs',
        token: 'wrong-wrong-wrong-wrong',
        json: { queue: 'emails' },
      });
      assert.equal(post.status, 401);
      assert.equal(await jobCount('emails'), before);
    });

    test('a body over the limit is 413 whether its length is declared or not, and nothing is written', async () => {
      const before = await jobCount('emails');
      const big = JSON.stringify({ queue: 'emails', data: 'x'.repeat(MAX_BODY) });
      const declared = await client.call({ method: 'POST', path: '/jobs', token: CI, raw: big });
      assert.equal(declared.status, 413);
      assert.equal(declared.body.code, 'BODY_TOO_LARGE');
      const chunked = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        raw: big,
        headers: { 'transfer-encoding': 'chunked' },
      });
      assert.equal(chunked.status, 413);
      const batch = await client.call({
        method: 'POST',
        path: '/jobs/batch',
        token: CI,
        raw: JSON.stringify({ jobs: [JSON.parse(big)] }),
      });
      assert.equal(batch.status, 413);
      assert.equal(await jobCount('emails'), before);
    });

    test('malformed JSON is 400, a body not sent as JSON 415, a bad option or a NUL 400 naming the field, an unknown queue 422: nothing written', async () => {
      const before = await jobCount('emails');
      const malformed = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        raw: '{"queue": "emails",',
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.code, 'MALFORMED_JSON');
      assert.equal(malformed.body.title, 'Malformed JSON');
      const form = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        raw: 'queue=emails',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 415);
      const bad = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        json: { queue: 'emails', priority: 'high' },
        invalid: true,
      });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, 'INVALID_OPTION');
      assert.equal(bad.body.details.field, 'priority');
      const nul = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        json: { queue: 'emails', data: 'a\u0000b' },
        invalid: true,
      });
      assert.deepEqual([nul.status, nul.body.code], [400, 'INVALID_OPTION'], 'a NUL PostgreSQL cannot store');
      const nulTag = await client.call({
        method: 'POST',
        path: '/jobs',
        token: CI,
        json: { queue: 'emails', tags: ['a\u0000'] },
        invalid: true,
      });
      assert.equal(nulTag.status, 400);
      const nulQuery = await client.call({ path: '/jobs?queue=a%00b', token: CI, invalid: true });
      assert.equal(nulQuery.status, 400);
      const unknown = await client.call({
        method: 'POST',
        path: '/jobs',
        token: ANY_QUEUE,
        json: { queue: 'nope' },
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.code, 'QUEUE_NOT_FOUND');
      assert.equal(await jobCount('emails'), before);
    });

    test('list: filters and pages by cursor; an unknown parameter or a bad value is 400 naming it', async () => {
      await tm.addJobs([1, 2, 3].map((n) => ({ queue: 'other', data: n, tags: ['listed'] })));
      const first = await client.call({
        path: '/jobs?queue=other&tags=listed&limit=2&order=asc',
        token: READER,
      });
      assert.equal(first.status, 200);
      assert.deepEqual(
        first.body.jobs.map((j: { data: number }) => j.data),
        [1, 2],
      );
      assert.ok(first.body.cursor);
      const next = await client.call({
        path: `/jobs?queue=other&tags=listed&limit=2&order=asc&after=${encodeURIComponent(first.body.cursor)}`,
        token: READER,
      });
      assert.deepEqual(
        next.body.jobs.map((j: { data: number }) => j.data),
        [3],
      );
      assert.equal(next.body.cursor, null);
      const unknown = await client.call({ path: '/jobs?colour=red', token: READER, invalid: true });
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.details.field, 'colour');
      const limit = await client.call({ path: '/jobs?limit=0', token: READER, invalid: true });
      assert.equal(limit.body.details.field, 'limit');
    });

    test('get: 404 JOB_NOT_FOUND for no such job, 400 for no id', async () => {
      const missing = await client.call({ path: '/jobs/999999', token: READER });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'JOB_NOT_FOUND');
      assert.equal((await client.call({ path: '/jobs/abc', token: READER })).status, 400);
      const route = await client.call({ path: '/queues', token: READER, invalid: true });
      assert.equal(route.body.code, 'ROUTE_NOT_FOUND');
      const method = await client.call({ method: 'DELETE', path: '/jobs/1', token: ADMIN, invalid: true });
      assert.equal(method.status, 405);
      assert.equal(method.headers.allow, 'GET');
    });

    test('result: 202 while not finished, 200 with the output once a wait sees the job complete, 409 JOB_FAILED for a failed job', async () => {
      const { id } = await tm.addJob({ queue: 'slow' });
      const pending = await client.call({ path: `/jobs/${id}/result`, token: READER });
      assert.deepEqual([pending.status, pending.body], [202, { id, status: 'pending' }]);
      const worker = fastWorker(tm, { queues: ['slow', 'broken'] });
      await worker.start();
      try {
        await waitForStatus(tm, id, 'active');
        const waiting = client.call({ path: `/jobs/${id}/result?wait=30`, token: READER });
        release.resolve();
        const done = await waiting;
        assert.deepEqual([done.status, done.body], [200, { id, status: 'completed', output: 'done' }]);
        const broken = await tm.addJob({ queue: 'broken' });
        const failed = await client.call({ path: `/jobs/${broken.id}/result?wait=30`, token: READER });
        assert.equal(failed.status, 409);
        assert.equal(failed.body.code, 'JOB_FAILED');
        assert.equal(failed.body.details.status, 'failed');
      } finally {
        await worker.stop();
      }
      const tooLong = await client.call({ path: `/jobs/${id}/result?wait=61`, token: READER, invalid: true });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.details.field, 'wait');
      assert.equal((await client.call({ path: '/jobs/999999/result?wait=1', token: READER })).status, 404);
    });

    test('signal: a signal:<queue> token signals that queue only (audited under its name); a read token cannot', async () => {
      const flow = await tm.addJob({ queue: 'flows' });
      const email = await tm.addJob({ queue: 'emails' });
      const sent = await client.call({
        method: 'POST',
        path: `/jobs/${flow.id}/signals/approve`,
        token: SIGNALER,
        json: { payload: { ok: true } },
      });
      assert.deepEqual([sent.status, sent.body], [200, { delivered: true }]);
      const elsewhere = await client.call({
        method: 'POST',
        path: `/jobs/${email.id}/signals/approve`,
        token: SIGNALER,
        json: {},
      });
      assert.equal(elsewhere.status, 403);
      assert.match(elsewhere.body.detail, /'signal:emails'/);
      assert.equal(
        (await client.call({ method: 'POST', path: `/jobs/${flow.id}/signals/approve`, token: READER }))
          .status,
        403,
      );
      const nulName = await client.call({
        method: 'POST',
        path: `/jobs/${flow.id}/signals/a%00b`,
        token: SIGNALER,
        invalid: true,
      });
      assert.equal(nulName.status, 400);
      const extra = await client.call({
        method: 'POST',
        path: `/jobs/${flow.id}/signals/approve`,
        token: SIGNALER,
        json: { payload: 1, more: 2 },
        invalid: true,
      });
      assert.equal(extra.status, 400);
      const [record] = await tm.listAudit({ action: 'signal' });
      assert.deepEqual([record.actor, record.source, record.target.jobId], ['signaler', 'api', flow.id]);
    });

    test('cancel and retry: admin only, each audited under the token name with source api', async () => {
      const { id } = await tm.addJob({ queue: 'other' });
      const cancelled = await client.call({ method: 'POST', path: `/jobs/${id}/cancel`, token: ADMIN });
      assert.deepEqual([cancelled.status, cancelled.body.status], [200, 'cancelled']);
      const retried = await client.call({ method: 'POST', path: `/jobs/${id}/retry`, token: ADMIN });
      assert.deepEqual([retried.status, retried.body.status], [200, 'pending']);
      const again = await client.call({ method: 'POST', path: `/jobs/${id}/retry`, token: ADMIN });
      assert.deepEqual(
        [again.status, again.body.code],
        [409, 'INVALID_JOB_STATE'],
        'a pending job is not retried',
      );
      assert.equal((await client.call({ method: 'POST', path: `/jobs/${id}/retry`, token: CI })).status, 403);
      const records = await tm.listAudit({ actor: 'ops' });
      assert.deepEqual(records.map((r) => [r.action, r.source, r.target.jobId]).sort(), [
        ['cancel', 'api', id],
        ['retry', 'api', id],
      ]);
    });

    test('every operation of the document was called, each with its success status', () => {
      for (const [template, item] of Object.entries(client.document.paths as Record<string, object>)) {
        for (const method of Object.keys(item)) {
          const ok = [...client.seen].some((seen) =>
            seen.startsWith(`${method.toUpperCase()} ${template} 2`),
          );
          assert.ok(ok, `${method.toUpperCase()} ${template} was called and answered 2xx`);
        }
      }
    });
  });
}
