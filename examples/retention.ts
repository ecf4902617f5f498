// Retention: a policy per queue, a dry run of the sweep, a real sweep, a hold that keeps a
// job through it, and the cluster-wide status. Run it with `npx tsx examples/retention.ts`.
import { JobFailedError, NonRetryableError, Retention, silentLogger, Tidemark } from 'tidemark';

// The engine's policy applies to queues and jobs that set none (Retention.STOCK is the default:
// completed jobs 30 days, failed, cancelled and expired ones 90 days).
const tm = await Tidemark.open({ database: 'memory://', logger: silentLogger, retention: Retention.STOCK });

// Windows are in seconds. The 1-second windows let this example show a sweep at once; real
// ones are hours or days.
tm.createQueue<{ imageId: number }>({
  name: 'thumbnails',
  retention: { ttlSeconds: 1 }, // every finished status, 1 s after it finished
  handler: async (job) => `thumb-${job.data.imageId}.png`,
});
tm.createQueue<{ to: string }>({
  name: 'emails',
  // Completed emails go after 1 s; failures stay 30 days for whoever investigates them.
  retention: { completed: 1, failed: 2_592_000, cancelled: 2_592_000, expired: 2_592_000 },
  handler: async (job) => {
    if (job.data.to.endsWith('.invalid')) throw new NonRetryableError('no such domain');
    return 'sent';
  },
});
tm.createQueue<{ amount: number }>({
  name: 'invoices',
  retention: false, // kept forever
  handler: async (job) => ({ invoiced: job.data.amount }),
});

// This example sweeps by hand with tm.sweep(). A worker sweeps on its own, hourly by default
// (the first run comes a few seconds after start()); keep that on in production.
await tm.worker({ sweep: false }).start();

const added = await tm.addJobs([
  { queue: 'thumbnails', data: { imageId: 1 } },
  { queue: 'thumbnails', data: { imageId: 2 } },
  { queue: 'thumbnails', data: { imageId: 3 } },
  { queue: 'emails', data: { to: 'ada@example.com' } },
  { queue: 'emails', data: { to: 'bob@example.invalid' } },
  { queue: 'invoices', data: { amount: 4_200 } },
]);
const ids = added.map((a) => a.id);
for (const id of ids) {
  await tm.result(id, { timeoutSeconds: 30 }).catch((error: unknown) => {
    if (!(error instanceof JobFailedError)) throw error;
  });
}

// A hold keeps chosen jobs (and their workflow trees) through every sweep until released.
const thumbnail3 = ids[2];
const { holdId } = await tm.holdJobs({ ids: [thumbnail3], reason: 'support ticket 42' });

// Each job carries the windows resolved when it was added, and the time it becomes due.
for (const id of ids) {
  const job = await tm.getJob(id);
  const due = job?.purgeAfter ? `due ${job.purgeAfter.toISOString()}` : 'kept forever';
  console.log(`job ${id} ${job?.queue} ${job?.status}: ${due}`);
}

// Every job above has finished, so after a little more than a second the 1-second windows have passed.
await new Promise((resolve) => setTimeout(resolve, 1_100));

const preview = await tm.sweep({ dryRun: true });
console.log(`dry run: ${preview.jobs} jobs would go`, JSON.stringify(preview.byQueue));

const swept = await tm.sweep();
console.log(`sweep: deleted ${swept.jobs} jobs`, JSON.stringify(swept.byQueue));

for (const id of ids) console.log(`job ${id}: ${(await tm.getJob(id)) ? 'kept' : 'deleted'}`);

const status = await tm.retentionStatus();
console.log(`retention status: paused=${status.paused}, holds=${status.holds}`);

// Released, the held job goes at the next sweep: its window passed meanwhile.
await tm.releaseHold(holdId);
const after = await tm.sweep();
console.log(`after releasing the hold: deleted ${after.jobs} more`);

await tm.close();
