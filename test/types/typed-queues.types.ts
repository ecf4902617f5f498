/*
 * Type tests of `tm.defineQueue`: checked by `tsc` (in CI and by test/types/type-tests.test.ts).
 * Each `@ts-expect-error` line must fail to compile; a line that compiled would fail the check.
 */
import { z } from 'zod';
import type { Job, Tidemark } from '../../src/index.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_proof?: T) => {};

export function typedQueues(tm: Tidemark) {
  const child = tm.defineQueue({
    name: 'double',
    input: z.object({ n: z.number() }),
    output: z.number(),
    handler: (job) => {
      expectType<Equal<typeof job.data, { n: number }>>();
      return job.data.n * 2;
    },
  });
  const emails = tm.defineQueue({
    name: 'emails',
    input: z.object({ to: z.string(), tries: z.number().default(1) }),
    output: z.object({ sent: z.boolean() }),
    signals: { decision: { mailbox: 1, schema: z.object({ ok: z.boolean() }) }, poke: { mailbox: 2 } },
    handler: async (job, ctx) => {
      // The input schema's output: the default is filled in.
      expectType<Equal<typeof job.data, { to: string; tries: number }>>();
      const answer = await ctx.waitForSignal('decision');
      if (!answer.timedOut) expectType<Equal<typeof answer.payload, { ok: boolean }>>();
      const poked = await ctx.waitForSignals('poke', 2);
      if (!poked.timedOut) expectType<Equal<typeof poked.payloads, unknown[]>>();
      // @ts-expect-error a signal the queue does not declare
      await ctx.waitForSignal('other');
      const doubled = await ctx.runChild(child, { n: 2 });
      expectType<Equal<typeof doubled, number>>();
      // @ts-expect-error the child's data does not fit its input schema
      await ctx.runChild(child, { n: 'two' });
      return { sent: true };
    },
  });
  tm.defineQueue({
    name: 'wrong',
    output: z.object({ sent: z.boolean() }),
    // @ts-expect-error the handler must return what the output schema takes
    handler: () => ({ sent: 'yes' }),
  });

  return async () => {
    // The input schema's input: `tries` may be left out.
    const { id } = await emails.add({ to: 'ada@example.com' });
    // @ts-expect-error `to` is missing
    await emails.add({ tries: 2 });
    // @ts-expect-error `to` is not a string
    await emails.add({ to: 5 });
    const output = await emails.result(id);
    expectType<Equal<typeof output, { sent: boolean }>>();
    const job = await emails.getJob(id);
    expectType<Equal<typeof job, Job<{ to: string; tries: number }, { sent: boolean }> | null>>();
    await emails.signal(id, 'decision', { ok: true });
    // @ts-expect-error the payload does not fit the signal's schema
    await emails.signal(id, 'decision', { ok: 'yes' });
    // @ts-expect-error a signal the queue does not declare
    await emails.signal(id, 'other', {});
    await emails.addMany([{ data: { to: 'a@b.c' } }, { data: { to: 'd@e.f', tries: 3 }, priority: 5 }]);
    // Without a registry, any queue name and data still compile, as before.
    await tm.addJob({ queue: 'anything', data: { free: true } });
    const free = await tm.result<{ free: boolean }>(id);
    expectType<Equal<typeof free, { free: boolean }>>();
  };
}
