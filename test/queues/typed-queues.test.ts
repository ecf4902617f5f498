import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type } from 'arktype';
import * as v from 'valibot';
import { z } from 'zod';
import { engineOf } from '../../src/engine-handle.js';
import { InvalidOptionError, JobValidationError } from '../../src/index.js';
import { createTestTidemark, type TestTidemark } from '../../src/testing/index.js';
import { rawQuery } from '../support/databases.js';

/** One engine for the file; each test its own queues. */
describe('typed queues through Standard Schema', () => {
  let tm: TestTidemark;
  before(async () => {
    tm = await createTestTidemark({ now: new Date('2030-01-01T00:00:00Z') });
  });
  after(() => tm.close());

  const isValidation = (value: string, path: (string | number)[]) => (error: unknown) =>
    error instanceof JobValidationError &&
    error.value === value &&
    error.issues.some((issue) => JSON.stringify(issue.path) === JSON.stringify(path));

  for (const [library, input, output] of [
    ['zod', z.object({ to: z.email(), tries: z.number().default(1) }), z.object({ sent: z.boolean() })],
    [
      'valibot',
      v.object({ to: v.pipe(v.string(), v.email()), tries: v.optional(v.number(), 1) }),
      v.object({ sent: v.boolean() }),
    ],
    ['arktype', type({ to: 'string.email', tries: 'number = 1' }), type({ sent: 'boolean' })],
  ] as const) {
    test(`${library}: data checked at add (nothing written when refused), defaults stored, output typed`, async () => {
      const name = `emails-${library}`;
      const emails = tm.defineQueue({
        name,
        input,
        output,
        handler: async (job) => ({ sent: job.data.to.includes('@') && job.data.tries === 1 }),
      });
      await assert.rejects(emails.add({ to: 'not an email' } as never), isValidation('data', ['to']));
      assert.equal((await tm.jobs(name)).length, 0, 'nothing was written');
      const { id } = await emails.add({ to: 'ada@example.com' });
      assert.deepEqual(
        (await emails.getJob(id))?.data,
        { to: 'ada@example.com', tries: 1 },
        'the default is stored',
      );
      await tm.runUntilIdle();
      const result: { sent: boolean } = await emails.result(id);
      assert.deepEqual(result, { sent: true });
      // tm.addJob to the same queue name is checked by the same schema.
      await assert.rejects(tm.addJob({ queue: name, data: { to: 5 } }), JobValidationError);
    });
  }

  test('a stored payload that no longer parses fails the job at once, with no retry and the issues in its error', async () => {
    tm.defineQueue({
      name: 'strict',
      maxAttempts: 5,
      input: z.object({ n: z.number() }),
      handler: () => null,
    });
    const { id } = await tm.addJob({ queue: 'strict', data: { n: 1 } });
    // A row written by an old producer or by SQL.
    await rawQuery(tm, `update "${tm.schema}".jobs set data = '{"n":"one"}' where id = $1`, [id]);
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.ok(job);
    assert.equal(job.status, 'failed');
    assert.equal(job.attempts, 1, 'no retry');
    assert.ok(job.error);
    assert.equal(job.error.code, 'JOB_VALIDATION');
    assert.deepEqual((job.error.details as { issues: { path: unknown[] }[] }).issues[0].path, ['n']);
  });

  test('upgrade repairs an old shape at claim', async () => {
    tm.defineQueue({
      name: 'upgraded',
      input: z.object({ n: z.number() }),
      upgrade: (raw) => ({ n: Number((raw as { count: string }).count) }),
      handler: (job) => job.data.n * 2,
    });
    const { id } = await tm.addJob({ queue: 'upgraded', data: { n: 1 } });
    await rawQuery(tm, `update "${tm.schema}".jobs set data = '{"count":"21"}' where id = $1`, [id]);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.output, 42);
  });

  test('a bad output fails the attempt with the issues', async () => {
    const q = tm.defineQueue({
      name: 'bad-output',
      maxAttempts: 1,
      output: z.object({ ok: z.literal(true) }),
      handler: () => ({ ok: false }) as unknown as { ok: true },
    });
    const { id } = await q.add({});
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.status, 'failed');
    assert.equal(job?.error?.code, 'JOB_VALIDATION');
  });

  test('signal payloads are checked at send and typed in the handler; children by handle', async () => {
    let completedInTransaction = false;
    const child = tm.defineQueue({
      name: 'double',
      input: z.object({ n: z.number() }),
      output: z.number(),
      handler: (job) => job.data.n * 2,
    });
    const parent = tm.defineQueue({
      name: 'approve',
      signals: { decision: { mailbox: 1, schema: z.object({ ok: z.boolean() }) } },
      handler: async (_job, ctx) => {
        // The run's state (step names, the suspension) stays with the context: a sleep and a
        // step before the checked wait replay as on any queue.
        const first = await ctx.step('first', () => 1);
        await ctx.sleep('nap', 60);
        const answer = await ctx.waitForSignal('decision');
        const doubled: number = await ctx.runChild(child, { n: 21 });
        ctx.completionTx(() => {
          completedInTransaction = true;
        });
        return { ok: answer.timedOut ? null : answer.payload.ok, doubled: doubled * first };
      },
    });
    const { id } = await parent.add(null);
    await tm.runUntilIdle();
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    await assert.rejects(
      parent.signal(id, 'decision', { ok: 'yes' } as never),
      isValidation("signal 'decision'", ['ok']),
    );
    await parent.signal(id, 'decision', { ok: true });
    await tm.runUntilIdle();
    assert.deepEqual(await parent.result(id), { ok: true, doubled: 42 });
    assert.equal(completedInTransaction, true, "the handler's completion transaction ran");
  });

  test('what is refused: a schema that is not one, and a second definition with other schemas', () => {
    assert.throws(
      () => tm.defineQueue({ name: 'x', input: { parse: () => 1 } as never }),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'input',
    );
    const schema = z.object({});
    tm.defineQueue({ name: 'twice', input: schema });
    tm.defineQueue({ name: 'twice', input: schema });
    assert.throws(
      () => tm.defineQueue({ name: 'twice', input: z.object({}) }),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'input',
    );
    assert.ok(engineOf(tm).registry.localQueue('twice'));
  });
});
