// A durable workflow: a step that runs once, a durable sleep, a wait for a signal, and a
// child job. Run it with `npx tsx examples/workflow.ts`.
import { silentLogger, Tidemark } from 'tidemark';

const tm = await Tidemark.open({ database: 'memory://', logger: silentLogger });

type Order = { orderId: number; total: number };
type Approval = { approved: boolean; by: string };

let handlerRuns = 0;
let charges = 0;

// Stands in for your payment provider. A real step body should be idempotent (an idempotency
// key to the provider): a crash after the charge but before its checkpoint runs it again.
async function charge(orderId: number, total: number): Promise<{ chargeId: string }> {
  charges += 1;
  console.log(`charging order ${orderId}: ${total}`);
  return { chargeId: `ch_${orderId}` };
}

tm.createQueue<{ orderId: number }, string>({
  name: 'shipping',
  handler: async (job) => `label-${job.data.orderId}`,
});

tm.createQueue<Order>({
  name: 'orders',
  signals: { approval: 1 }, // the signals this queue's jobs accept, with mailbox sizes
  handler: async (job, ctx) => {
    // The handler runs again from the top each time the workflow resumes; completed calls
    // return their stored results instead of running again.
    handlerRuns += 1;
    const { orderId, total } = job.data;
    const payment = await ctx.step('charge', () => charge(orderId, total));
    await ctx.sleep('cool-off', 0.5); // durable: frees the worker slot (hours, in real life)
    const answer = await ctx.waitForSignal('approval', { timeoutSeconds: 60 });
    // A payload is whatever JSON the sender passed: check it before trusting its shape.
    const approval = answer.payload as Approval | null;
    if (answer.timedOut || approval?.approved !== true) return { status: 'refused', payment };
    const label = await ctx.runChild<string>('shipping', { orderId }); // created once, ever
    return { status: 'shipped', payment, label, approvedBy: approval.by };
  },
});

tm.on('job:suspended', (event) => {
  if (event.queue === 'orders') console.log(`order job ${event.id} parked, waiting for a ${event.reason}`);
});

// Sleeps that come due are found by polling (once a second by default); signals and finished
// children wake the workflow at once.
await tm.worker({ pollIntervalSeconds: 0.1 }).start();

const { id } = await tm.addJob<Order>({ queue: 'orders', data: { orderId: 7, total: 4_200 } });

// A signal sent before the workflow reaches its wait is kept until the wait consumes it.
const delivery = await tm.signal(id, 'approval', { approved: true, by: 'ada' } satisfies Approval);
console.log('signal:', JSON.stringify(delivery)); // {"delivered":true}

const output = await tm.result(id, { timeoutSeconds: 30 });
console.log('result:', JSON.stringify(output));

const detail = await tm.getJobDetail(id);
console.log('checkpoints:', detail?.checkpoints.map((c) => `${c.name} (${c.kind})`).join(', '));
console.log('children:', detail?.children.map((c) => `${c.queue} #${c.id} ${c.status}`).join(', '));
const chargeRuns = charges === 1 ? 'once' : `${charges} times`;
console.log(
  `the handler ran ${handlerRuns} times (each resume replays it); the charge step ran ${chargeRuns}`,
);

await tm.close();
