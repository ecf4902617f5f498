/**
 * Flow control's cost (issue figures keys-mixed, keys-1000, keys-hot, fairness, limiter, batch), and
 * that of what a job says of itself (notes): each measured
 * beside the plain drain in the same process, on fresh schemas, with stock retention.
 */
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { AddJobInput, KeysOptions, Tidemark } from '../../dist/index.js';
import { rawLoopSubject } from '../subjects/raw-loop.js';
import { BULK_BATCH, CONCURRENCY, drain, type Figures, JOBS } from './figures.js';
import { settle } from './postgres.js';
import { rawKeyedDrain } from './raw-keyed-loop.js';
import { rate, until } from './stats.js';
import { openTidemark } from './tidemark-subject.js';

/** What one drain adds: the job of index n, the queue's key rule. */
interface DrainShape {
  keys?: KeysOptions;
  /** The queue names a limiter that is never exhausted (see limitedDrain). */
  limited?: boolean;
  /** The queue's handler takes batches of this many jobs (see batchDrain). */
  batch?: number;
  /** The handler reports its progress, or writes a log line, once per job (see notesDrain). */
  notes?: 'progress' | 'log';
  /** The engine traces every attempt, to an exporter that drops the spans (see tracedDrain). */
  traced?: boolean;
  job(n: number): Omit<AddJobInput, 'queue'>;
  /** Jobs added before the measured ones that the drain leaves alone (another queue's). */
  count?: number;
}

const PLAIN: DrainShape = { job: (n) => ({ data: { n } }) };

/** Add the jobs, then drain them with one worker at CONCURRENCY; jobs/s from start to last. */
async function drainWith(shape: DrainShape, prepare?: (tm: Tidemark) => Promise<void>): Promise<number> {
  const { tm, dispose } = await openTidemark(
    'pg',
    undefined,
    shape.traced ? { tracer: droppingTracer() } : {},
  );
  try {
    const count = shape.count ?? JOBS;
    let done = 0;
    const common = {
      name: 'q',
      ...(shape.keys ? { keys: shape.keys } : {}),
      ...(shape.limited ? { limiters: [{ name: 'roomy' }] } : {}),
    };
    if (shape.notes !== undefined) {
      const note = shape.notes;
      tm.createQueue({
        ...common,
        handler: (_job, ctx) => {
          if (note === 'progress') ctx.progress(100);
          else ctx.log.info('done', { step: 1 });
          done++;
        },
      });
    } else if (shape.batch === undefined) {
      tm.createQueue({
        ...common,
        handler: () => {
          done++;
        },
      });
    } else {
      tm.createQueue({
        ...common,
        batch: { maxSize: shape.batch, maxWaitSeconds: 0 },
        handler: (jobs) => {
          done += jobs.length;
          return jobs.map((job) => ({ id: job.id }));
        },
      });
    }
    if (shape.limited)
      await tm.defineLimiter('roomy', { limit: 1_000_000, periodSeconds: 1, burst: 1_000_000 });
    if (prepare) await prepare(tm);
    for (let i = 0; i < count; i += BULK_BATCH) {
      await tm.addJobs(
        Array.from({ length: Math.min(BULK_BATCH, count - i) }, (_, k) => ({
          queue: 'q',
          ...shape.job(i + k),
        })),
      );
    }
    await settle();
    const worker = tm.worker({
      queues: ['q'],
      concurrency: CONCURRENCY,
      sweep: false,
      uniqueLockSweep: false,
    });
    const started = performance.now();
    await worker.start();
    await until(() => done >= count);
    const elapsed = performance.now() - started;
    await worker.stop();
    return rate(count, elapsed);
  } finally {
    await dispose();
  }
}

/** The plain drain, then the same jobs without a key on a queue that also holds 2,000 keyed jobs of a paused key. */
export async function mixedDrain(): Promise<Figures> {
  const plain = await drainWith(PLAIN);
  const mixed = await drainWith({ ...PLAIN, keys: { concurrency: 1 } }, async (tm) => {
    // Keyed jobs that stay in the queue for the whole drain: their key is paused.
    await tm.pauseKey('q', 'parked');
    await tm.addJobs(Array.from({ length: 2_000 }, () => ({ queue: 'q', key: 'parked' })));
  });
  return { plain, mixed };
}

/**
 * The plain drain, then the same jobs spread over `keys` keys at `concurrency` each; and
 * both again by the bare SQL loop on the same table (raw-keyed-loop.ts), the bound a strict
 * keyed drain meets on this machine.
 */
async function keyedDrains(keys: number, concurrency: number): Promise<Figures> {
  const plain = await drainWith(PLAIN);
  const keyed = await drainWith({
    keys: { concurrency },
    job: (n) => ({ data: { n }, key: `k${n % keys}` }),
  });
  const rawPlain = (await drain(rawLoopSubject())).jobsPerSecond;
  const rawKeyed = await rawKeyedDrain(JOBS, keys, concurrency);
  return { plain, keyed, rawPlain, rawKeyed };
}

/** Jobs spread over 1,000 keys at concurrency 1 each (keyedDrains). */
export const manyKeysDrain = () => keyedDrains(1_000, 1);

/** Jobs spread over 10 hot keys at concurrency 10 each (keyedDrains). */
export const hotKeysDrain = () => keyedDrains(10, 10);

/** The plain drain, then the same jobs on a queue with a limiter that is never exhausted. */
export async function limitedDrain(): Promise<Figures> {
  const plain = await drainWith(PLAIN);
  const limited = await drainWith({ ...PLAIN, limited: true });
  return { plain, limited };
}

/** The plain drain, then the same jobs with one `ctx.progress` call, and with one `ctx.log` line, per job. */
export async function notesDrain(): Promise<Figures> {
  const plain = await drainWith(PLAIN);
  const progress = await drainWith({ ...PLAIN, notes: 'progress' });
  const logged = await drainWith({ ...PLAIN, notes: 'log' });
  return { plain, progress, logged };
}

/** A tracer whose spans are batched to an exporter that drops them: tracing's own cost. */
function droppingTracer() {
  const exporter: SpanExporter = {
    // 0 is ExportResultCode.SUCCESS (of @opentelemetry/core, not a dependency of its own here).
    export: (_spans, done) => done({ code: 0 }),
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] });
  return provider.getTracer('bench');
}

/** The plain drain, then the same jobs with every attempt traced (a span each, exported nowhere). */
export async function tracedDrain(): Promise<Figures> {
  const plain = await drainWith(PLAIN);
  const traced = await drainWith({ ...PLAIN, traced: true });
  return { plain, traced };
}

/** The plain drain, then the same jobs on a queue whose handler takes batches of 100. */
export async function batchDrain(): Promise<Figures> {
  const plain = await drainWith(PLAIN);
  const batched = await drainWith({ ...PLAIN, batch: 100 });
  return { plain, batched };
}

const FAIRNESS_BACKLOG = 10_000;

/**
 * How long one job of a new tenant waits behind another tenant's 10,000-job backlog once the
 * worker is busy with it: on a queue with round-robin keys, and on a plain queue (pg-boss 10
 * has no group limits: its queues serve the backlog first, like the plain queue).
 */
export async function fairnessDelay(): Promise<Figures> {
  const delay = async (fair: boolean) => {
    const { tm, dispose } = await openTidemark('pg');
    try {
      let started = 0;
      let smallAt = -1;
      tm.createQueue({
        name: 'q',
        ...(fair ? { keys: { concurrency: FAIRNESS_BACKLOG, fairness: 'round-robin' as const } } : {}),
        handler: (job) => {
          started++;
          if (job.key === 'small') smallAt = performance.now();
        },
      });
      for (let i = 0; i < FAIRNESS_BACKLOG; i += BULK_BATCH) {
        await tm.addJobs(Array.from({ length: BULK_BATCH }, () => ({ queue: 'q', key: 'big' })));
      }
      const worker = tm.worker({
        queues: ['q'],
        concurrency: CONCURRENCY,
        sweep: false,
        uniqueLockSweep: false,
      });
      await worker.start();
      await until(() => started >= 200);
      const addedAt = performance.now();
      await tm.addJob({ queue: 'q', key: 'small' });
      await until(() => smallAt >= 0);
      await worker.stop();
      return smallAt - addedAt;
    } finally {
      await dispose();
    }
  };
  return { fair: await delay(true), plain: await delay(false) };
}
