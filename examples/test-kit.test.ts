// The test kit: a typed queue and a day-long workflow, tested in milliseconds on a clock the
// test moves. Run it with `npx tsx --test examples/test-kit.test.ts`. See docs/testing.md.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { JobValidationError } from 'tidemark';
import { createTestTidemark, expectJob, runHandler } from 'tidemark/testing';
import { z } from 'zod';

const DAY = 86_400;

// One engine for the file; its clock starts here and moves only when a test moves it.
const tm = await createTestTidemark({ now: new Date('2030-01-01T09:00:00Z') });
after(() => tm.close());

const reminders = tm.defineQueue({
  name: 'reminders',
  input: z.object({ to: z.email(), hours: z.number().default(24) }),
  output: z.object({ reminded: z.boolean() }),
  signals: { confirmed: { mailbox: 1, schema: z.object({ at: z.string() }) } },
  handler: async (job, ctx) => {
    await ctx.sleep('wait-a-day', job.data.hours * 3_600);
    const answer = await ctx.waitForSignal('confirmed', { timeoutSeconds: 7 * DAY });
    return { reminded: answer.timedOut };
  },
});

test('bad data is refused at add, and nothing is written', async () => {
  await assert.rejects(reminders.add({ to: 'nobody' }), JobValidationError);
  assert.equal((await tm.jobs('reminders')).length, 0);
});

test('a reminder sleeps a day, then waits a week for a confirmation', async () => {
  const { id } = await reminders.add({ to: 'ada@example.com' });
  await tm.runUntilIdle();
  await expectJob(tm, { queue: 'reminders', status: 'waiting', where: { to: 'ada@example.com' } });
  await tm.clock.advance(DAY);
  await tm.runUntilIdle();
  await tm.clock.advance(7 * DAY);
  await tm.runUntilIdle();
  assert.deepEqual(await reminders.result(id), { reminded: true });
});

test('a confirmation in time: no reminder', async () => {
  const { id } = await reminders.add({ to: 'grace@example.com', hours: 1 });
  await tm.runUntilIdle();
  await tm.clock.advance(3_600);
  await tm.runUntilIdle();
  await reminders.signal(id, 'confirmed', { at: tm.clock.now().toISOString() });
  await tm.runUntilIdle();
  assert.deepEqual(await reminders.result(id), { reminded: false });
});

test('the handler alone, with a fake context', async () => {
  const handler = async (data: { to: string }, confirmed: boolean) =>
    runHandler(
      async (_job, ctx) => {
        await ctx.sleep('wait-a-day', DAY);
        return { reminded: (await ctx.waitForSignal('confirmed', { timeoutSeconds: DAY })).timedOut };
      },
      data,
      { signals: confirmed ? { confirmed: [{ at: 'now' }] } : {} },
    );
  assert.deepEqual((await handler({ to: 'a@b.c' }, true)).output, { reminded: false });
  const { output, calls } = await handler({ to: 'a@b.c' }, false);
  assert.deepEqual(output, { reminded: true });
  assert.deepEqual(calls[0], { kind: 'sleep', name: 'wait-a-day', seconds: DAY });
});
