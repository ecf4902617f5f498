import { countJobsExactly } from '../../admin/exact-counts.js';
import { engineOf } from '../../engine-handle.js';
import { isFinished } from '../../job-status.js';
import { consoleLogger } from '../../log/logger.js';
import { Tidemark } from '../../tidemark.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { databaseFrom } from '../database-option.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';
import { portOption, wholeNumberOption } from '../whole-number-option.js';

const USAGE = `Usage: tidemark demo [--database URL|PATH] [--schema NAME] [--jobs N] [--serve [--port N]]

Runs Tidemark's main job on the embedded database (./.tidemark unless told otherwise):
a few queues (one that fails sometimes and retries, one delayed, one high priority) and
an order workflow (charge, sleep, wait for an approval signal, ship through a child job),
worked by one worker with a live progress line, then a summary per queue and status.

Options:
  --database URL|PATH   postgres://… URL or embedded folder (default ./.tidemark)
  --schema NAME         SQL schema of Tidemark's tables (default tidemark)
  --jobs N              plain jobs to run (default 3000)
  --serve               then serve the dashboard on 127.0.0.1 until Ctrl-C
  --port N              dashboard port with --serve (default 4321; 0 picks a free one)`;

interface DemoRow {
  queue: string;
  status: string;
  n: number;
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the demo: queues, retries, delays, priorities and a workflow',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: {
        database: { type: 'string' },
        schema: { type: 'string' },
        jobs: { type: 'string' },
        serve: { type: 'boolean' },
        port: { type: 'string' },
      },
      strict: true,
    });
    const jobCount = wholeNumberOption('--jobs', values.jobs, { min: 1, max: 1_000_000 }) ?? 3000;
    const database = databaseFrom(values.database, io);
    io.stdout.write(`Opening ${database} …\n`);
    const port = portOption(values.port);
    const schema = values.schema ?? io.env.TIDEMARK_SCHEMA;
    const tm = await Tidemark.open({
      database,
      logger: consoleLogger('info'),
      ...(schema ? { schema } : {}),
    });
    try {
      const code = await runDemo(tm, jobCount, io);
      if (!values.serve) {
        io.stdout.write(
          `\nSee it in the dashboard: npm run demo -- --serve (or tidemark dashboard --database ${database})\n`,
        );
        return code;
      }
      const dashboard = await tm.dashboard(port === undefined ? {} : { port });
      io.stdout.write(`\nDashboard: ${dashboard.url}  (Ctrl-C to stop)\n`);
      await io.untilInterrupted?.();
      await dashboard.close();
      return code;
    } finally {
      await tm.close();
    }
  },
};

async function runDemo(tm: Tidemark, jobCount: number, io: CliIo): Promise<number> {
  const since = new Date(Date.now() - 1000);
  defineQueues(tm);
  const started = performance.now();
  const { orderIds, total } = await addDemoJobs(tm, jobCount, io);
  const finished = await workUntilDone(tm, { since, started, total, orderIds }, io);
  const seconds = (performance.now() - started) / 1000;
  if (io.stdout.isTTY) io.stdout.write('\n');
  io.stdout.write(`\n${summary(await counts(tm, since), seconds)}\n`);
  await describeOrder(tm, orderIds[0], io);
  if (finished < total) {
    io.stderr.write(`demo: only ${finished} of ${total} jobs finished in time\n`);
    return 1;
  }
  io.stdout.write(
    `\nAll ${total} jobs finished in ${seconds.toFixed(1)} s (${Math.round(total / seconds)} jobs/s).\n`,
  );
  return 0;
}

/** Add the demo's jobs, about `jobCount` of them: the order workflows' ids, and how many jobs will run in all. */
async function addDemoJobs(
  tm: Tidemark,
  jobCount: number,
  io: CliIo,
): Promise<{ orderIds: string[]; total: number }> {
  const plain = Math.round(jobCount * 0.8);
  const payments = Math.round(jobCount * 0.12);
  const reports = Math.round(jobCount * 0.05);
  const alerts = Math.max(jobCount - plain - payments - reports, 1);
  const orders = 20;
  await tm.addJobs(
    Array.from({ length: plain }, (_, i) => ({ queue: 'demo.emails', data: { to: `user${i}@example.com` } })),
  );
  await tm.addJobs(
    Array.from({ length: payments }, (_, i) => ({
      queue: 'demo.payments',
      data: { invoice: i, cents: 100 + i },
    })),
  );
  await tm.addJobs(
    Array.from({ length: reports }, (_, i) => ({
      queue: 'demo.reports',
      data: { report: i },
      delaySeconds: 1 + (i % 3) / 2,
    })),
  );
  await tm.addJobs(
    Array.from({ length: alerts }, (_, i) => ({ queue: 'demo.alerts', data: { alert: i }, priority: 10 })),
  );
  const orderIds = (
    await tm.addJobs(
      Array.from({ length: orders }, (_, i) => ({ queue: 'demo.orders', data: { order: i, cents: 2500 } })),
    )
  ).map((r) => r.id);
  io.stdout.write(
    `Added ${plain} emails, ${payments} payments (some fail and retry), ${reports} delayed reports, ` +
      `${alerts} high-priority alerts and ${orders} order workflows.\n`,
  );
  // Each order runs a child shipping job as well.
  return { orderIds, total: plain + payments + reports + alerts + orders * 2 };
}

/** What the progress line follows: jobs added since `since`, `total` of them, from `started` on. */
interface DemoRun {
  since: Date;
  started: number;
  total: number;
  orderIds: string[];
}

/**
 * Work the jobs with one worker, approving the orders as they wait, and show a progress line
 * until all are finished or three minutes have passed; how many finished.
 */
async function workUntilDone(tm: Tidemark, run: DemoRun, io: CliIo): Promise<number> {
  const worker = tm.worker({ concurrency: 20, tickIntervalSeconds: 0.5, pollIntervalSeconds: 0.2 });
  await worker.start();
  const approvals = setInterval(() => {
    // Approve every order; a full mailbox or an already-approved order is refused, harmlessly.
    for (const id of run.orderIds) void tm.signal(id, 'approval', { by: 'demo' }).catch(() => {});
  }, 300);
  let finished = 0;
  const deadline = Date.now() + 180_000;
  let lastLine = 0;
  try {
    while (Date.now() < deadline) {
      const rows = await counts(tm, run.since);
      finished = rows.filter((r) => isFinished(r.status)).reduce((s, r) => s + r.n, 0);
      const line = progressLine(rows, finished, run);
      if (io.stdout.isTTY) io.stdout.write(`\r${line}   `);
      else if (Date.now() - lastLine > 1000 || finished >= run.total) {
        io.stdout.write(`${line}\n`);
        lastLine = Date.now();
      }
      if (finished >= run.total) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    clearInterval(approvals);
    await worker.stop();
  }
  return finished;
}

function progressLine(rows: DemoRow[], finished: number, run: DemoRun): string {
  const by = (status: string) => rows.filter((r) => r.status === status).reduce((s, r) => s + r.n, 0);
  const seconds = (performance.now() - run.started) / 1000;
  return (
    `  finished ${finished}/${run.total}  active ${by('active')}  retry ${by('retry')}  ` +
    `waiting ${by('waiting')}  pending ${by('pending')}  ${Math.round(finished / seconds)} jobs/s`
  );
}

/** One order workflow as it ended: its checkpoints, signals, child and output. */
async function describeOrder(tm: Tidemark, id: string | undefined, io: CliIo): Promise<void> {
  const order = id ? await tm.getJobDetail(id) : null;
  if (!order) return;
  io.stdout.write(
    `\nOrder workflow ${order.job.id}: ${order.job.status}, checkpoints ${order.checkpoints
      .map((c) => c.name)
      .join(', ')}, ${order.signals.length} signal(s), child ${order.children[0]?.id ?? '-'} ` +
      `(${order.children[0]?.status ?? '-'}); output ${JSON.stringify(order.job.output)}\n`,
  );
}

function defineQueues(tm: Tidemark): void {
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  tm.createQueue({ name: 'demo.emails', handler: async () => ({ sent: true }) });
  tm.createQueue<{ invoice: number }>({
    name: 'demo.payments',
    maxAttempts: 4,
    backoff: { delaySeconds: 0.05, factor: 2 },
    handler: async (job) => {
      if (Math.random() < 0.25) throw new Error(`card declined for invoice ${job.data.invoice}`);
      return { charged: true };
    },
  });
  tm.createQueue({ name: 'demo.reports', handler: async () => ({ rendered: true }) });
  tm.createQueue({ name: 'demo.alerts', handler: async () => ({ paged: true }) });
  tm.createQueue<{ order: number }>({
    name: 'demo.shipping',
    handler: async (job) => {
      await pause(5);
      return { tracking: `TM-${job.data.order}` };
    },
  });
  tm.createQueue<{ order: number; cents: number }>({
    name: 'demo.orders',
    signals: { approval: 1 },
    handler: async (job, ctx) => {
      const order = job.data;
      const charge = await ctx.step('charge', async () => ({
        chargeId: `ch_${order.order}`,
        cents: order.cents,
      }));
      await ctx.sleep('cool-off', 0.5);
      const approval = await ctx.waitForSignal('approval', { timeoutSeconds: 60 });
      if (approval.timedOut) return { ...charge, shipped: false, reason: 'no approval' };
      const shipment = await ctx.runChild<{ tracking: string }>('demo.shipping', { order: order.order });
      return { ...charge, approvedBy: (approval.payload as { by: string }).by, tracking: shipment.tracking };
    },
  });
}

async function counts(tm: Tidemark, since: Date): Promise<DemoRow[]> {
  const rows = await countJobsExactly(engineOf(tm), since);
  return rows.filter((r) => r.queue.startsWith('demo.'));
}

function summary(rows: DemoRow[], seconds: number): string {
  const queues = [...new Set(rows.map((r) => r.queue))].sort();
  const statuses = [
    'completed',
    'failed',
    'cancelled',
    'expired',
    'pending',
    'retry',
    'waiting',
    'active',
    'paused',
  ].filter((status) => rows.some((r) => r.status === status));
  const table = queues.map((queue) => {
    const of = (status: string) => rows.find((r) => r.queue === queue && r.status === status)?.n ?? 0;
    const total = statuses.reduce((s, status) => s + of(status), 0);
    return [
      queue,
      ...statuses.map((status) => String(of(status))),
      String(total),
      (total / seconds).toFixed(0),
    ];
  });
  return renderTable(['queue', ...statuses, 'total', 'jobs/s'], table);
}
