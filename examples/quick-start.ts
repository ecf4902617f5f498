// The README's quick start, runnable: a typed queue, a worker, a job and its result.
// Run it with `npx tsx examples/quick-start.ts`.
import { Tidemark } from 'tidemark';

// 'memory://' keeps this example from leaving a folder behind. Leave `database` out for the
// embedded default (a ./.tidemark folder that survives restarts), or pass 'postgres://…'.
const tm = await Tidemark.open({ database: 'memory://' });

type Email = { to: string };
type Sent = { sent: boolean };

// Stands in for your mail provider's client.
async function sendEmail(to: string, options: { signal: AbortSignal }): Promise<void> {
  options.signal.throwIfAborted();
  console.log(`sending an email to ${to}`);
}

// The type arguments type the handler's job.data (Email) and check what it returns (Sent).
tm.createQueue<Email, Sent>({
  name: 'emails',
  maxAttempts: 5,
  backoff: { delaySeconds: 2, factor: 2 }, // 2 s, 4 s, 8 s … with jitter
  handler: async (job, ctx) => {
    await sendEmail(job.data.to, { signal: ctx.signal }); // ctx.signal fires on cancel or timeout
    return { sent: true }; // becomes job.output
  },
});

// The worker's first start logs one line saying what retention will delete.
const worker = tm.worker({ concurrency: 10 });
await worker.start();

const { id } = await tm.addJob<Email>({ queue: 'emails', data: { to: 'ada@example.com' } });
console.log(`added job ${id}`);

const output = await tm.result<Sent>(id, { timeoutSeconds: 30 });
console.log('result:', JSON.stringify(output)); // {"sent":true}

const job = await tm.getJob(id);
console.log(`status: ${job?.status}, attempts: ${job?.attempts}`);

await tm.close(); // stops the worker gracefully, then the database
