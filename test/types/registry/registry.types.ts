/*
 * The registry by declaration merging, compiled on its own by test/types/type-tests.test.ts:
 * declaring it here would type every other test's `tm.addJob` too.
 */
import type { Tidemark } from 'tidemark';

declare module 'tidemark' {
  interface Queues {
    emails: { data: { to: string }; output: { sent: boolean } };
    resize: { data: { url: string; width: number }; output: { bytes: number } };
  }
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <T extends true>(_proof?: T) => {};

export async function producer(tm: Tidemark) {
  const { id } = await tm.addJob({ queue: 'emails', data: { to: 'ada@example.com' } });
  const output = await tm.result(id);
  expectType<Equal<typeof output, { sent: boolean }>>();
  await tm.addJobs([
    { queue: 'emails', data: { to: 'a@b.c' } },
    { queue: 'resize', data: { url: 'https://x', width: 100 } },
  ]);
  // @ts-expect-error an unknown queue name
  await tm.addJob({ queue: 'emials', data: { to: 'ada@example.com' } });
  // @ts-expect-error a payload of another queue
  await tm.addJob({ queue: 'emails', data: { url: 'https://x', width: 100 } });
  // @ts-expect-error a wrong field type
  await tm.addJobs([{ queue: 'resize', data: { url: 'https://x', width: '100' } }]);
}
