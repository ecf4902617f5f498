// Testing your handlers with node:test on an in-memory engine: the real queue, no server and
// no mocks. Run it with `npx tsx --test examples/testing-handlers.test.ts`. See docs/testing.md.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  type Job,
  JobFailedError,
  type JobStatus,
  NonRetryableError,
  silentLogger,
  Tidemark,
} from 'tidemark';

// In your project these queues come from your own module (for example a `defineQueues(tm, config)`
// that production calls too), with short durations passed in by the test.
type Email = { to: string };
type Order = { orderId: number; approvalTimeoutSeconds: number };

const sent: string[] = [];
let smtpFailuresLeft = 2;
let reservations = 0;

// One engine for the file: starting an embedded database takes seconds, a job milliseconds.
const tm = await Tidemark.open({ database: 'memory://', logger: silentLogger });
tm.createQueue<Email, { sent: boolean }>({
  name: 'emails',
  maxAttempts: 3,
  backoff: { delaySeconds: 0 }, // retry at once in tests
  handler: async (job) => {
    if (job.data.to.endsWith('.invalid')) throw new NonRetryableError('no such domain');
    if (job.data.to === 'flaky@example.com' && smtpFailuresLeft > 0) {
      smtpFailuresLeft -= 1;
      throw new Error('smtp down');
    }
    sent.push(job.data.to);
    return { sent: true };
  },
});
tm.createQueue<Order>({
  name: 'orders',
  signals: { approval: 1 },
  handler: async (job, ctx) => {
    await ctx.step('reserve', () => {
      reservations += 1;
      return { orderId: job.data.orderId };
    });
    const answer = await ctx.waitForSignal('approval', { timeoutSeconds: job.data.approvalTimeoutSeconds });
    return answer.timedOut ? 'expired' : 'approved';
  },
});
// A short poll interval finds work that becomes due later (a signal timeout) quickly.
await tm.worker({ pollIntervalSeconds: 0.05 }).start();
after(() => tm.close()); // without it the test process does not exit

/** Poll until the job reaches `status`: statuses change on the worker's time. */
async function waitForStatus(id: string, status: JobStatus, timeoutMs = 5_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await tm.getJob(id);
    if (job?.status === status) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} is ${job?.status ?? 'gone'}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('an email job completes', async () => {
  const { id } = await tm.addJob<Email>({ queue: 'emails', data: { to: 'ada@example.com' } });
  assert.deepEqual(await tm.result(id, { timeoutSeconds: 5 }), { sent: true });
  assert.ok(sent.includes('ada@example.com'));
});

test('an invalid address fails at once, without retries', async () => {
  const { id } = await tm.addJob<Email>({ queue: 'emails', data: { to: 'bob@example.invalid' } });
  await assert.rejects(tm.result(id, { timeoutSeconds: 5 }), JobFailedError);
  const job = await tm.getJob(id);
  assert.equal(job?.status, 'failed');
  assert.equal(job?.attempts, 1);
  assert.equal(job?.error?.message, 'no such domain');
});

test('a flaky send succeeds on its third attempt', async () => {
  const { id } = await tm.addJob<Email>({ queue: 'emails', data: { to: 'flaky@example.com' } });
  assert.deepEqual(await tm.result(id, { timeoutSeconds: 5 }), { sent: true });
  const job = await tm.getJob(id);
  assert.equal(job?.attempts, 3);
  assert.equal(job?.error?.message, 'smtp down'); // the last failed attempt's error is kept
});

test('an approved order: parked on its signal, then approved', async () => {
  const { id } = await tm.addJob<Order>({
    queue: 'orders',
    data: { orderId: 7, approvalTimeoutSeconds: 3_600 },
  });
  await waitForStatus(id, 'waiting'); // parked, holding no worker slot
  assert.deepEqual(await tm.signal(id, 'approval', { by: 'ada' }), { delivered: true });
  assert.equal(await tm.result(id, { timeoutSeconds: 5 }), 'approved');

  const detail = await tm.getJobDetail(id);
  assert.deepEqual(
    detail?.checkpoints.map((c) => c.name),
    ['reserve', 'wait:approval#1'],
  );
  assert.deepEqual(
    detail?.signals.map((s) => s.state),
    ['consumed'],
  );
});

test('an order nobody approves expires, and its step ran once', async () => {
  const before = reservations;
  const { id } = await tm.addJob<Order>({
    queue: 'orders',
    data: { orderId: 8, approvalTimeoutSeconds: 0.1 },
  });
  assert.equal(await tm.result(id, { timeoutSeconds: 5 }), 'expired');
  assert.equal(reservations - before, 1); // the replay after the wait took the checkpoint
});
