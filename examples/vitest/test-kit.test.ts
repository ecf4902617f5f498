// The test kit under vitest: the same engine, clock and assertions as the node:test example
// beside it (../test-kit.test.ts), with vitest's own `test`, `expect` and `afterAll`.
// Run it with `npx vitest run --config examples/vitest/vitest.config.ts`. See docs/testing.md.
import { JobValidationError } from 'tidemark';
import { createTestTidemark, expectJob } from 'tidemark/testing';
import { afterAll, expect, test } from 'vitest';
import { z } from 'zod';

const HOUR = 3_600;

const tm = await createTestTidemark({ now: new Date('2030-01-01T09:00:00Z') });
afterAll(() => tm.close());

const invoices = tm.defineQueue({
  name: 'invoices',
  input: z.object({ customer: z.string().min(1), dueInHours: z.number().int().positive() }),
  output: z.object({ chased: z.number() }),
  handler: async (job, ctx) => {
    let chased = 0;
    // Chase every day until the invoice is paid, at most three times.
    for (; chased < 3; chased++) {
      const paid = await ctx.waitForSignal('paid', { timeoutSeconds: job.data.dueInHours * HOUR });
      if (!paid.timedOut) break;
    }
    return { chased };
  },
  signals: { paid: { mailbox: 1 } },
});

test('bad data is refused at add with the path of each issue', async () => {
  const refusal = await invoices.add({ customer: '', dueInHours: 0 }).catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(JobValidationError);
  expect((refusal as JobValidationError).issues.map((issue) => issue.path?.join('.'))).toEqual([
    'customer',
    'dueInHours',
  ]);
  expect(await tm.jobs('invoices')).toHaveLength(0);
});

test('an unpaid invoice is chased three times over three days', async () => {
  const { id } = await invoices.add({ customer: 'acme', dueInHours: 24 });
  await tm.runUntilIdle();
  for (let day = 0; day < 3; day++) {
    await expectJob(tm, { queue: 'invoices', status: 'waiting', where: { customer: 'acme' } });
    await tm.clock.advance(24 * HOUR);
    await tm.runUntilIdle();
  }
  expect(await invoices.result(id)).toEqual({ chased: 3 });
});

test('a payment stops the chase', async () => {
  const { id } = await invoices.add({ customer: 'globex', dueInHours: 24 });
  await tm.runUntilIdle();
  await tm.clock.advance(24 * HOUR);
  await tm.runUntilIdle();
  await invoices.signal(id, 'paid', null);
  await tm.runUntilIdle();
  expect(await invoices.result(id)).toEqual({ chased: 1 });
});
