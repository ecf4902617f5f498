import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import {
  type CallbackToken,
  DuplicateStepError,
  type Handler,
  InvalidOptionError,
  type Tidemark,
  TokenClosedError,
  TokenNotFoundError,
  TokenPayloadError,
  type TokenResult,
  TokensNotConfiguredError,
} from '../../src/index.js';
import { runHandler } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { count } from './fixtures/helpers.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** A workflow that makes a token, hands it out in a step, and waits for it. */
function approval(handed: CallbackToken[], options: { schema?: unknown; timeoutSeconds?: number } = {}) {
  const handler: Handler = async (_job, ctx) => {
    const token = await ctx.createToken('approval', {
      timeoutSeconds: options.timeoutSeconds ?? 3600,
      ...options,
    });
    handed.push(token);
    await ctx.step('send', () => token.id);
    return ctx.waitForToken(token);
  };
  return handler;
}

describeEachDriver('callback tokens', ({ openOnClock }) => {
  test('a waiting workflow holds no slot; completing its token resumes it with the data, once', async () => {
    const tm = await openOnClock();
    const handed: CallbackToken[] = [];
    tm.createQueue({ name: 'wf', handler: approval(handed) });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const parked = await tm.getJob(id);
    assert.equal(parked?.status, 'waiting');
    assert.equal(parked?.lockedBy, null, 'no worker slot held');
    const [token] = handed;
    assert.equal(token.expiresAt.getTime(), tm.clock.now().getTime() + 3600_000);
    const listed = (await tm.getJobDetail(id))?.tokens ?? [];
    assert.deepEqual(
      listed.map((t) => [t.id, t.name, t.state, t.expiresAt.getTime(), t.settledAt]),
      [[token.id, 'approval', 'pending', token.expiresAt.getTime(), null]],
      "the job's detail lists its token",
    );

    assert.deepEqual(await tm.completeToken(token.id, { approved: true }), { status: 'completed' });
    await tm.runUntilIdle();
    const done = await tm.getJob(id);
    assert.equal(done?.status, 'completed');
    assert.deepEqual(done?.output, { ok: true, data: { approved: true } });
    // The resumed run made its token again and got the same one back (a replay).
    assert.equal(handed.length, 2);
    assert.equal(handed[1].id, token.id);
    assert.equal(await count(tm, 'job_tokens'), 1);
    const [settled] = (await tm.getJobDetail(id))?.tokens ?? [];
    assert.equal(settled?.state, 'completed');
    assert.ok(settled?.settledAt instanceof Date, 'settled when completed');

    // Idempotent: a second completion reports it and changes nothing.
    assert.deepEqual(await tm.completeToken(token.id, { approved: false }), { status: 'already-completed' });
    const [row] = await tokenRows(tm);
    assert.deepEqual(row.data, { approved: true });
    assert.equal((await tm.getJob(id))?.status, 'completed');
  });

  test('a completion that comes while the run is still going is not lost', async () => {
    const tm = await openOnClock();
    let tokenId = '';
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        const token = await ctx.createToken('t', { timeoutSeconds: 60 });
        tokenId = token.id;
        // Completed before the run reaches its wait: the wait reads it at once.
        await ctx.step('complete', () => tm.completeToken(token.id, 'early'));
        return ctx.waitForToken(token);
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, { ok: true, data: 'early' });
    assert.ok(tokenId);
  });

  test('a token not completed in time: the wait resolves as timed out, and the token is closed', async () => {
    const tm = await openOnClock();
    const handed: CallbackToken[] = [];
    tm.createQueue({ name: 'wf', handler: approval(handed, { timeoutSeconds: 60 }) });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.clock.advance(59.999);
    assert.equal((await tm.runUntilIdle()).attempts, 0, 'not woken before its time');
    await tm.clock.advance(0.001);
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, { ok: false, reason: 'timeout' });
    await assert.rejects(tm.completeToken(handed[0].id, 1), (e: unknown) => {
      assert.ok(e instanceof TokenClosedError);
      assert.equal(e.reason, 'expired');
      return true;
    });
    // Swept once expired: it holds nothing anyone can use.
    const swept = await tm.sweep();
    assert.equal(swept.expiredTokens, 1);
    assert.equal(await count(tm, 'job_tokens'), 0);
    await assert.rejects(tm.completeToken(handed[0].id, 1), TokenNotFoundError);
  });

  test('a parked run whose expired token was swept still times out', async () => {
    const tm = await openOnClock();
    const handed: CallbackToken[] = [];
    tm.createQueue({ name: 'wf', handler: approval(handed, { timeoutSeconds: 60 }) });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.pauseJob(id);
    await tm.clock.advance(61);
    assert.equal((await tm.sweep()).expiredTokens, 1);
    await tm.resumeJob(id);
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, { ok: false, reason: 'timeout' });
  });

  test('cancelToken: the wait resolves as cancelled; the token can no longer be completed', async () => {
    const tm = await openOnClock();
    const handed: CallbackToken[] = [];
    tm.createQueue({ name: 'wf', handler: approval(handed) });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    assert.deepEqual(await tm.cancelToken(handed[0].id), { status: 'cancelled' });
    assert.deepEqual(await tm.cancelToken(handed[0].id), { status: 'already-cancelled' });
    await assert.rejects(tm.completeToken(handed[0].id, 1), TokenClosedError);
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, { ok: false, reason: 'cancelled' });
  });

  test('a payload its schema refuses, or over the cap, is refused by name and nothing is written', async () => {
    const tm = await openOnClock({ tokens: { maxPayloadBytes: 100 } });
    const handed: CallbackToken[] = [];
    const schema = {
      type: 'object',
      properties: { approved: { type: 'boolean' }, note: { type: 'string', maxLength: 20 } },
      required: ['approved'],
      additionalProperties: false,
    };
    tm.createQueue({ name: 'wf', handler: approval(handed, { schema }) });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    const tokenId = handed[0].id;
    const refusedAs = (field: string) => (e: unknown) => {
      assert.ok(e instanceof TokenPayloadError, String(e));
      assert.equal(e.field, field);
      return true;
    };
    await assert.rejects(tm.completeToken(tokenId, { approved: 'yes' }), refusedAs('data.approved'));
    await assert.rejects(tm.completeToken(tokenId, {}), refusedAs('data.approved'));
    await assert.rejects(tm.completeToken(tokenId, { approved: true, extra: 1 }), refusedAs('data.extra'));
    await assert.rejects(
      tm.completeToken(tokenId, { approved: true, note: 'x'.repeat(200) }),
      refusedAs('data'),
    );
    const [row] = await tokenRows(tm);
    assert.equal(row.state, 'pending');
    assert.equal(row.data, null);
    assert.equal((await tm.getJob(id))?.status, 'waiting');
    assert.deepEqual(await tm.completeToken(tokenId, { approved: true, note: 'ok' }), {
      status: 'completed',
    });
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, { ok: true, data: { approved: true, note: 'ok' } });
  });

  test('a TypeBox schema is checked as given; a keyword tokens cannot check is refused at once', async () => {
    const tm = await openOnClock();
    let refusal: unknown = null;
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        try {
          await ctx.createToken('bad', { timeoutSeconds: 5, schema: { type: 'object', oneOf: [] } });
        } catch (error) {
          refusal = error;
        }
        const schema = Type.Object({
          approved: Type.Boolean(),
          amount: Type.Optional(Type.Integer({ minimum: 1 })),
          via: Type.Union([Type.Literal('mail'), Type.Literal('chat')]),
        });
        return ctx.waitForToken(await ctx.createToken('typed', { timeoutSeconds: 60, schema }));
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    assert.ok(refusal instanceof InvalidOptionError);
    assert.equal(refusal.field, 'schema.oneOf');
    const [typed] = await tokenRows(tm);
    assert.equal((await tokenRows(tm)).length, 1, 'nothing written for the refused one');
    const fieldOf = async (data: unknown) =>
      tm.completeToken(typed.id, data).then(
        () => 'accepted',
        (e: unknown) => (e instanceof TokenPayloadError ? e.field : String(e)),
      );
    assert.equal(await fieldOf({ approved: 1, via: 'mail' }), 'data.approved');
    assert.equal(await fieldOf({ approved: true, amount: 0, via: 'mail' }), 'data.amount');
    assert.equal(await fieldOf({ approved: true, amount: 1.5, via: 'mail' }), 'data.amount');
    assert.equal(await fieldOf({ approved: true, via: 'post' }), 'data.via');
    assert.equal(await fieldOf({ approved: true }), 'data.via');
    assert.equal(await fieldOf({ approved: true, amount: 3, via: 'chat' }), 'accepted');
    await tm.runUntilIdle();
    assert.deepEqual((await tm.getJob(id))?.output, {
      ok: true,
      data: { approved: true, amount: 3, via: 'chat' },
    });
  });

  test('bad input: a malformed id, an unknown token, a name used twice, a token of another run', async () => {
    const tm = await openOnClock();
    await assert.rejects(tm.completeToken('42', 1), (e: unknown) => {
      assert.ok(e instanceof InvalidOptionError);
      assert.equal(e.field, 'id');
      return true;
    });
    await assert.rejects(tm.completeToken(UNKNOWN, 1), TokenNotFoundError);
    await assert.rejects(tm.cancelToken(UNKNOWN), TokenNotFoundError);
    await assert.rejects(
      tm.completeToken(UNKNOWN, () => 1),
      InvalidOptionError,
    );

    const handed: CallbackToken[] = [];
    tm.createQueue({ name: 'first', handler: approval(handed) });
    const errors: unknown[] = [];
    tm.createQueue({
      name: 'second',
      handler: async (_job, ctx) => {
        await ctx.createToken('t', { timeoutSeconds: 5 }).catch((e) => errors.push(e));
        await ctx.step('t', () => 1).catch((e) => errors.push(e));
        // A token another job made is not this run's to wait for.
        await ctx.waitForToken(handed[0]).catch((e) => errors.push(e));
        return 'done';
      },
    });
    await tm.addJob({ queue: 'first' });
    await tm.runUntilIdle();
    await tm.addJob({ queue: 'second' });
    await tm.runUntilIdle();
    assert.equal(errors.length, 2);
    assert.ok(errors.some((e) => e instanceof DuplicateStepError));
    const foreign = errors.find((e) => e instanceof InvalidOptionError);
    assert.ok(foreign instanceof InvalidOptionError);
    assert.equal(foreign.field, 'token');
  });

  test("a deleted job's token is gone with it: completing it finds nothing and changes nothing", async () => {
    const tm = await openOnClock();
    const handed: CallbackToken[] = [];
    tm.createQueue({ name: 'wf', handler: approval(handed) });
    const { id } = await tm.addJob({ queue: 'wf' });
    await tm.runUntilIdle();
    await tm.cancelJob(id);
    await assert.rejects(tm.completeToken(handed[0].id, 1), (e: unknown) => {
      assert.ok(e instanceof TokenClosedError);
      assert.equal(e.reason, 'job-finished');
      return true;
    });
    await tm.deleteJob(id);
    assert.equal(await count(tm, 'job_tokens'), 0);
    await assert.rejects(tm.completeToken(handed[0].id, 1), TokenNotFoundError);
    assert.equal(await count(tm, 'job_tokens'), 0);
  });

  test('url() needs tokens.secrets and tokens.baseUrl, named; the id alone still works', async () => {
    for (const [tokens, option] of [
      [undefined, 'tokens.secrets'],
      [{ secrets: [SECRET] }, 'tokens.baseUrl'],
    ] as const) {
      const tm = await openOnClock(tokens ? { tokens } : {});
      let refusal: unknown = null;
      tm.createQueue({
        name: 'wf',
        handler: async (_job, ctx) => {
          const token = await ctx.createToken('t', { timeoutSeconds: 5 });
          try {
            token.url();
          } catch (error) {
            refusal = error;
          }
          return ctx.waitForToken(token);
        },
      });
      const { id } = await tm.addJob({ queue: 'wf' });
      await tm.runUntilIdle();
      assert.ok(refusal instanceof TokensNotConfiguredError);
      assert.equal(refusal.option, option);
      const [row] = await tokenRows(tm);
      await tm.completeToken(row.id, 'by id');
      await tm.runUntilIdle();
      assert.deepEqual((await tm.getJob(id))?.output, { ok: true, data: 'by id' });
    }
  });
});

test('runHandler: tokens answer from `tokens`, and time out when not named', async () => {
  const handler: Handler<unknown, TokenResult[]> = async (_job, ctx) => {
    const a = await ctx.createToken('a', { timeoutSeconds: 5 });
    const b = await ctx.createToken('b', { timeoutSeconds: 5 });
    return [await ctx.waitForToken(a), await ctx.waitForToken(b)];
  };
  const { output, calls } = await runHandler(handler, null, { tokens: { a: { data: 7 } } });
  assert.deepEqual(output, [
    { ok: true, data: 7 },
    { ok: false, reason: 'timeout' },
  ]);
  assert.deepEqual(
    calls.map((c) => c.kind),
    ['token', 'token', 'token-wait', 'token-wait'],
  );
});

async function tokenRows(tm: Tidemark) {
  return rawQuery<{ id: string; state: string; data: unknown }>(
    tm,
    `select id::text as id, state, data from "${tm.schema}".job_tokens order by created_at`,
  );
}
