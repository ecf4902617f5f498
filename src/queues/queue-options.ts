import { InvalidOptionError } from '../errors.js';
import type { BatchOptions, BatchRule } from '../model/batch.js';
import type { Job } from '../model/job.js';
import { MAX_ATTEMPTS } from '../model/job-rules.js';
import { type KeysOptions, MAX_KEY_CONCURRENCY, type StoredKeysRule } from '../model/keys.js';
import type { QueueLimiter } from '../model/limiter.js';
import type { BackoffOptions, StoredQueueOptions } from '../model/queue.js';
import type { RetentionPolicy } from '../model/retention-policy.js';
import type { StandardSchemaV1 } from '../model/standard-schema.js';
import { checkInteger, checkObject, checkString } from '../options/check.js';
import { boolean, custom, integer, object, seconds, text } from '../options/fields.js';
import { OptionSet } from '../options/option-set.js';
import { functionField, retentionField } from '../options/shared-fields.js';
import type { JobContext } from '../workflow/job-context.js';
import { checkBatch, MAX_BATCH_SIZE, MAX_BATCH_WAIT_SECONDS } from './batch-rule.js';
import { checkKeysRule } from './keys-rule.js';
import { checkQueueLimiters, MAX_QUEUE_LIMITERS, storedLimiters } from './limiter-rules.js';

export type { BackoffOptions, StoredQueueOptions } from '../model/queue.js';
export type { BatchQueueOptions, QueueOptions, SingleQueueOptions } from './queue-option-types.js';

/** A job handler. Its return value (JSON) becomes the job's output. */
export type Handler<Data = unknown, Output = unknown> = (
  job: Job<Data, Output>,
  ctx: JobContext,
) => Promise<Output> | Output;

/** Signals a queue's jobs accept, each with its mailbox size. */
function checkSignals(input: unknown, field: string): Record<string, number> {
  const signals = checkObject(input, field);
  const out: Record<string, number> = {};
  for (const [name, size] of Object.entries(signals)) {
    checkString(name, `${field} (name)`);
    out[name] = checkInteger(size, `${field}.${name}`, 1, 10_000);
  }
  return out;
}

/** At most a year, for every duration of a queue. */
const YEAR = 31_536_000;

export const DEFAULT_BACKOFF: Required<BackoffOptions> = Object.freeze({
  delaySeconds: 1,
  factor: 2,
  maxDelaySeconds: 3_600,
  jitter: true,
});

/** A queue's options, declared once: `tm.createQueue`'s input, checked, with its defaults. */
export const queueOptions = new OptionSet(
  'queue',
  {
    name: text(200, { description: "the queue's name" }),
    handler: functionField<Handler>({
      expected: 'a function (job, ctx) => output',
      docType: '`(job, ctx) => Output \\| Promise<Output>`',
      description:
        'runs each job; its JSON return value becomes `job.output`. A producer process needs no handler.',
    }),
    concurrency: integer(1, 10_000, {
      description:
        "at most this many of the queue's jobs run at once on one worker (jobs prefetched for it count too)",
      docDefault: "none: only the worker's `concurrency` limits it",
    }),
    maxAttempts: integer(MAX_ATTEMPTS.min, MAX_ATTEMPTS.max, {
      default: MAX_ATTEMPTS.default,
      description: 'attempts before a job ends `failed`',
    }),
    timeoutSeconds: seconds(
      { exclusiveMin: true, max: YEAR },
      {
        description:
          'per-attempt time limit: the attempt fails with `JobTimeoutError` and `ctx.signal` fires',
      },
    ),
    backoff: object(
      {
        delaySeconds: seconds(
          { max: YEAR },
          {
            description: 'the delay after the first failed attempt; required when `backoff` is given',
            docDefault: '`1`',
          },
        ),
        factor: seconds(
          { min: 1, max: 100 },
          {
            default: DEFAULT_BACKOFF.factor,
            description:
              'each later delay is this many times the one before: `delaySeconds * factor^(attempt - 1)`',
          },
        ),
        maxDelaySeconds: seconds(
          { max: YEAR },
          { default: DEFAULT_BACKOFF.maxDelaySeconds, description: 'the longest delay' },
        ),
        jitter: boolean({
          default: DEFAULT_BACKOFF.jitter,
          description: 'spread each delay randomly over [delay/2, delay]; `false` keeps it exact',
        }),
      },
      {
        required: ['delaySeconds'],
        default: DEFAULT_BACKOFF,
        docType: '`{ delaySeconds, factor?, maxDelaySeconds?, jitter? }`',
        docExpand: true,
        description: 'exponential backoff between attempts',
      },
    ),
    retention: retentionField({
      description: "this queue's policy; replaces the engine's (see [retention.md](retention.md#policies))",
      docDefault: "none: the engine's",
    }),
    signals: custom<Record<string, number>, Record<string, number>, Record<string, number>>({
      expected: 'an object',
      docType: '`Record<string, number>`',
      docDefault: '`{}`',
      default: {},
      description:
        'the workflow signals its jobs accept, each with its mailbox size (1 to 10,000) (see [workflows.md](workflows.md#signals))',
      jsonSchema: {
        type: 'object',
        additionalProperties: { type: 'integer', minimum: 1, maximum: 10_000 },
        default: {},
      },
      check: checkSignals,
    }),
    deleteCheckpointsOnComplete: boolean({
      default: false,
      description: "delete a job's checkpoints in the transaction that completes it",
    }),
    version: text(100, {
      description:
        'the code version stamped on each job added to the queue, so `listJobs({ version })` finds the in-flight jobs of an old one (see [workflows.md](workflows.md#evolving-workflows))',
      docDefault: 'none',
    }),
    keys: custom<KeysOptions, StoredKeysRule>({
      expected: 'an object { concurrency, order?, fairness? }',
      docType:
        "`{ concurrency: number \\| { default, tiers? }; order?: 'fifo' \\| 'priority'; fairness?: 'round-robin' \\| { weights } }`",
      docDefault: 'none: keys do not limit',
      description:
        "flow control by the jobs' `key`: at most `concurrency` jobs of one key run at once across the cluster (a `tier` picks its own limit), in priority or FIFO order, with fair shares across keys (see [flow-control.md](flow-control.md))",
      jsonSchema: {
        type: 'object',
        required: ['concurrency'],
        properties: {
          concurrency: {
            oneOf: [
              { type: 'integer', minimum: 1, maximum: MAX_KEY_CONCURRENCY },
              {
                type: 'object',
                required: ['default'],
                properties: {
                  default: { type: 'integer', minimum: 1, maximum: MAX_KEY_CONCURRENCY },
                  tiers: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
                },
              },
            ],
          },
          order: { enum: ['fifo', 'priority'] },
          fairness: {
            oneOf: [
              { const: 'round-robin' },
              {
                type: 'object',
                required: ['weights'],
                properties: { weights: { type: 'object', additionalProperties: { type: 'number' } } },
              },
            ],
          },
        },
      },
      check: checkKeysRule,
    }),
    limiters: custom<QueueLimiter[]>({
      expected: 'an array of { name, key?, cost? }',
      docType: '`{ name: string; key?: (data) => string; cost?: (data) => number }[]`',
      docDefault: 'none',
      description:
        'rate limits: a job starts only when each named limiter (`tm.defineLimiter`) has its `cost` in tokens (default 1) in the bucket of its `key` (one bucket per key; none: one for the limiter), and starting takes them; jobs held back wait for their turn without holding back others (see [flow-control.md](flow-control.md#rate-limits))',
      jsonSchema: {
        type: 'array',
        maxItems: MAX_QUEUE_LIMITERS,
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
      check: checkQueueLimiters,
    }),
    globalConcurrency: integer(1, MAX_KEY_CONCURRENCY, {
      description:
        "at most this many of the queue's jobs run at once across the cluster, in all processes together (with or without a key)",
      docDefault: 'none',
    }),
    batch: custom<BatchOptions, BatchRule>({
      expected: 'an object { maxSize, maxWaitSeconds, key? }',
      docType: '`{ maxSize: number; maxWaitSeconds: number; key?: true \\| ((data) => string) }`',
      docDefault: 'none: one job per call',
      description:
        "the handler takes up to `maxSize` jobs (1 to 1,000) at once and gives an outcome per job; a batch waits at most `maxWaitSeconds` (0 to 3,600) to fill; with `key`, a batch never mixes keys (`true`: the jobs' `key`) (see [flow-control.md](flow-control.md#batch-handlers))",
      jsonSchema: {
        type: 'object',
        required: ['maxSize', 'maxWaitSeconds'],
        properties: {
          maxSize: { type: 'integer', minimum: 1, maximum: MAX_BATCH_SIZE },
          maxWaitSeconds: { type: 'number', minimum: 0, maximum: MAX_BATCH_WAIT_SECONDS },
        },
      },
      check: checkBatch,
    }),
  },
  ['name'],
);

/** A queue's options after validation and defaults: its stored options, its name and handler. */
export interface ResolvedQueue extends StoredQueueOptions {
  name: string;
  handler?: Handler;
  /** The schemas of a queue made with `tm.defineQueue`: in this process only, never stored. */
  schemas?: QueueSchemas;
  /** The queue's `limiters` with their key and cost functions: in this process only (stored: `limiters`). */
  limiterRules?: QueueLimiter[];
  /** The queue's `batch`: in this process only, never stored. `handler` then takes batches. */
  batchRule?: BatchRule;
}

/** What `tm.defineQueue` checks a queue's values with. */
export interface QueueSchemas {
  input?: StandardSchemaV1;
  output?: StandardSchemaV1;
  /** By signal name, for the signals declared with a schema. */
  signals: Record<string, StandardSchemaV1>;
  /** Repairs stored data its input schema refuses when a worker claims the job. */
  upgrade?: (raw: unknown) => unknown;
}

export const DEFAULT_MAX_ATTEMPTS = MAX_ATTEMPTS.default;

/**
 * Check `tm.createQueue`'s options and fill in the defaults; with the policy as given, for the
 * note on what it keeps forever.
 */
export function resolveQueueOptions(input: unknown): {
  queue: ResolvedQueue;
  policy?: RetentionPolicy | false;
} {
  const options = queueOptions.read(input);
  const queue: ResolvedQueue = {
    name: options.name,
    handler: options.handler,
    retention: options.retention?.windows,
    concurrency: options.concurrency,
    maxAttempts: options.maxAttempts,
    timeoutSeconds: options.timeoutSeconds,
    backoff: options.backoff,
    signals: options.signals,
    deleteCheckpointsOnComplete: options.deleteCheckpointsOnComplete,
    keys: options.keys,
    globalConcurrency: options.globalConcurrency,
  };
  if (options.version !== undefined) queue.version = options.version;
  if (options.batch !== undefined) {
    if (options.limiters !== undefined && options.limiters.length > 0) {
      // A granted job must start within its limiter's guard; a batch waits to fill.
      throw new InvalidOptionError('batch', 'no batch on a queue with limiters', options.batch);
    }
    queue.batchRule = options.batch;
  }
  if (options.limiters !== undefined && options.limiters.length > 0) {
    queue.limiterRules = options.limiters;
    queue.limiters = storedLimiters(options.limiters);
  }
  return { queue, policy: options.retention?.policy };
}

/** Seconds to wait before attempt `attempt + 1`, after attempt `attempt` failed. */
export function backoffSeconds(
  backoff: Required<BackoffOptions>,
  attempt: number,
  random = Math.random,
): number {
  const exact = Math.min(
    backoff.delaySeconds * backoff.factor ** Math.max(attempt - 1, 0),
    backoff.maxDelaySeconds,
  );
  return backoff.jitter ? exact / 2 + (random() * exact) / 2 : exact;
}

export function storedOptions(queue: ResolvedQueue): StoredQueueOptions {
  const { name: _name, handler: _handler, limiterRules: _rules, batchRule: _batch, ...stored } = queue;
  return stored;
}
