import { Type } from '@sinclair/typebox';
import { retentionSweepOption } from '../maintenance/retention-sweep/options.js';
import { tickIntervalOption } from '../maintenance/tick/options.js';
import { uniqueLockSweepOption } from '../maintenance/unique-lock-sweep/options.js';
import { either, integer, literal, seconds, text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { AUTO_PREFETCH_MAX } from './prefetch.js';

/** A worker's options, declared once: `tm.worker`'s input, checked, with its defaults. */
export const workerOptions = new OptionSet('worker', {
  queues: Type.Array(text(200, { description: 'a queue name' }), {
    minItems: 1,
    expected: 'a non-empty array of queue names',
    docType: '`string[]` (not empty)',
    docDefault:
      'every queue created in this process with a handler, including queues created after the worker started',
    description: 'the queues this worker claims from; each must have a handler in this process',
  }),
  concurrency: integer(1, 10_000, { default: 10, description: 'jobs run at once on this worker' }),
  prefetch: either([literal('auto'), Type.Integer({ minimum: 0, maximum: 10_000 })], {
    expected: "'auto' or an integer from 0 to 10000",
    docType: "`number` (whole, 0 to 10,000) or `'auto'`",
    default: 'auto' as const,
    description:
      "jobs held claimed beyond the free slots, so a freed slot never waits for a claim round trip. `'auto'` holds about four claim round trips of work at the rate jobs start now or, when higher, the rate the slots could start them (the concurrency over how long a job lately held its slot), up to 1,000, and none for slow jobs; a number holds that many; `0` claims only for free slots. Held jobs are covered by heartbeats and given back on `stop()`.",
  }),
  fetchBatchSize: integer(1, 10_000, {
    description: 'the most jobs one claim statement takes',
    docDefault: "`concurrency` plus the prefetch bound (1,000 for `'auto'`), at most 10,000",
  }),
  batchWaitSeconds: seconds(
    { max: 3_600 },
    {
      description:
        "the longest a partial batch of a queue with `batch` waits to fill in this worker, when shorter than the queue's `maxWaitSeconds` (0: run what one claim brought); the test kit's worker uses 0",
      docDefault: "the queue's `batch.maxWaitSeconds`",
    },
  ),
  pollIntervalSeconds: seconds(
    { min: 0.01, max: 3_600 },
    {
      default: 1,
      description:
        'how often the worker looks for due work when no notification arrives (retries and delayed jobs coming due, workflows waking from a sleep)',
    },
  ),
  lockSeconds: seconds(
    { min: 1, max: 86_400 },
    {
      default: 60,
      description:
        'how long a claim owns a job without a heartbeat; heartbeats extend it every third of it (a beat that fails is tried again within 2 s). A job whose lock lapses is stalled and recovered by the maintenance tick, unless its worker is alive after a database outage: see *Outages longer than the lock* in [concepts](concepts.md#outages-longer-than-the-lock).',
    },
  ),
  tickIntervalSeconds: tickIntervalOption,
  shutdownTimeoutSeconds: seconds(
    { max: 86_400 },
    {
      default: 30,
      description:
        'how long `stop()` waits for running handlers; then it aborts them (`ctx.signal`) and gives their jobs back at once, without counting an attempt',
    },
  ),
  sweep: retentionSweepOption,
  uniqueLockSweep: uniqueLockSweepOption,
  id: text(200, {
    docDefault: '`host:pid:random`',
    description:
      "this worker's name in logs and in `locked_by`; one process at a time: `start()` under the id of a worker live in another process throws `WorkerIdInUseError`",
  }),
});

/** Options of `tm.worker(...)`. */
export type WorkerOptions = OptionsOf<typeof workerOptions.properties>;

/** Options of the retention and unique-lock sweeps on a worker. */
export type SweepOptions = Exclude<WorkerOptions['sweep'], false | undefined>;

/** A worker's options once checked, its defaults filled in. */
export type ResolvedWorkerOptions = Omit<ReturnType<typeof workerOptions.read>, 'fetchBatchSize'> & {
  fetchBatchSize: number;
};

/** Validate worker options. Warnings (a clamped batch size) are returned for the worker to log once. */
export function resolveWorkerOptions(input: unknown = {}): {
  options: ResolvedWorkerOptions;
  warnings: string[];
} {
  const warnings: string[] = [];
  const options = workerOptions.read(input ?? {}, '', warnings);
  const { concurrency, prefetch } = options;
  return {
    warnings,
    options: {
      ...options,
      fetchBatchSize:
        options.fetchBatchSize ??
        Math.min(concurrency + (prefetch === 'auto' ? AUTO_PREFETCH_MAX : prefetch), 10_000),
    },
  };
}

/** `worker.stop(options)`'s options, declared once. */
export const stopOptions = new OptionSet('options', {
  timeoutSeconds: seconds(
    { max: 86_400 },
    {
      description: 'how long running handlers get to finish before their jobs are given back',
      docDefault: "the worker's `shutdownTimeoutSeconds`",
    },
  ),
});

/** Options of `worker.stop`. */
export type StopOptions = OptionsOf<typeof stopOptions.properties>;
