import { InvalidOptionError } from '../errors.js';
import type { Job } from '../model/job.js';
import { MAX_ATTEMPTS } from '../model/job-rules.js';
import type { BackoffOptions, StoredQueueOptions } from '../model/queue.js';
import {
  checkBoolean,
  checkInteger,
  checkKnownKeys,
  checkObject,
  checkSeconds,
  checkString,
} from '../options/check.js';
import { freezeRetention, type RetentionPolicy } from '../retention/policy.js';
import type { JobContext } from '../workflow/job-context.js';

export type { BackoffOptions, StoredQueueOptions } from '../model/queue.js';

/** A job handler. Its return value (JSON) becomes the job's output. */
export type Handler<Data = unknown, Output = unknown> = (
  job: Job<Data, Output>,
  ctx: JobContext,
) => Promise<Output> | Output;

/** Options of `tm.createQueue`. */
export interface QueueOptions<Data = unknown, Output = unknown> {
  name: string;
  handler?: Handler<Data, Output>;
  /** Retention for this queue's jobs; replaces the engine's policy. `false` keeps them forever. */
  retention?: RetentionPolicy | false;
  /** At most this many of the queue's jobs run at once on one worker. */
  concurrency?: number;
  /** Default 3. */
  maxAttempts?: number;
  /** Per-attempt time limit; the attempt fails with JobTimeoutError and its AbortSignal fires. */
  timeoutSeconds?: number;
  backoff?: BackoffOptions;
  /** Signals this queue's jobs accept, with their mailbox size: `{ approval: 1, votes: 3 }`. */
  signals?: Record<string, number>;
  /** Delete a job's checkpoints in the same transaction as its successful completion. */
  deleteCheckpointsOnComplete?: boolean;
}

/** A queue's options after validation and defaults: its stored options, its name and handler. */
export interface ResolvedQueue extends StoredQueueOptions {
  name: string;
  handler?: Handler;
}

export const DEFAULT_MAX_ATTEMPTS = MAX_ATTEMPTS.default;
export const DEFAULT_BACKOFF: Required<BackoffOptions> = Object.freeze({
  delaySeconds: 1,
  factor: 2,
  maxDelaySeconds: 3_600,
  jitter: true,
});

const KNOWN = [
  'name',
  'handler',
  'retention',
  'concurrency',
  'maxAttempts',
  'timeoutSeconds',
  'backoff',
  'signals',
  'deleteCheckpointsOnComplete',
] as const;

export function resolveQueueOptions(input: unknown): ResolvedQueue {
  const options = checkObject(input, 'queue');
  checkKnownKeys(options, '', KNOWN);
  const name = checkString(options.name, 'name');
  if (options.handler !== undefined && typeof options.handler !== 'function') {
    throw new InvalidOptionError('handler', 'a function (job, ctx) => output', options.handler);
  }
  return {
    name,
    handler: options.handler as Handler | undefined,
    retention: options.retention === undefined ? undefined : freezeRetention(options.retention, 'retention'),
    concurrency:
      options.concurrency === undefined
        ? undefined
        : checkInteger(options.concurrency, 'concurrency', 1, 10_000),
    maxAttempts:
      options.maxAttempts === undefined
        ? DEFAULT_MAX_ATTEMPTS
        : checkInteger(options.maxAttempts, 'maxAttempts', MAX_ATTEMPTS.min, MAX_ATTEMPTS.max),
    timeoutSeconds:
      options.timeoutSeconds === undefined
        ? undefined
        : checkSeconds(options.timeoutSeconds, 'timeoutSeconds', { exclusiveMin: true, max: 31_536_000 }),
    backoff: resolveBackoff(options.backoff),
    signals: resolveSignals(options.signals),
    deleteCheckpointsOnComplete:
      options.deleteCheckpointsOnComplete === undefined
        ? false
        : checkBoolean(options.deleteCheckpointsOnComplete, 'deleteCheckpointsOnComplete'),
  };
}

function resolveBackoff(input: unknown): Required<BackoffOptions> {
  if (input === undefined) return DEFAULT_BACKOFF;
  const backoff = checkObject(input, 'backoff');
  checkKnownKeys(backoff, 'backoff', ['delaySeconds', 'factor', 'maxDelaySeconds', 'jitter']);
  return {
    delaySeconds: checkSeconds(backoff.delaySeconds, 'backoff.delaySeconds', { max: 31_536_000 }),
    factor:
      backoff.factor === undefined ? 2 : checkSeconds(backoff.factor, 'backoff.factor', { min: 1, max: 100 }),
    maxDelaySeconds:
      backoff.maxDelaySeconds === undefined
        ? 3_600
        : checkSeconds(backoff.maxDelaySeconds, 'backoff.maxDelaySeconds', { max: 31_536_000 }),
    jitter: backoff.jitter === undefined ? true : checkBoolean(backoff.jitter, 'backoff.jitter'),
  };
}

function resolveSignals(input: unknown): Record<string, number> {
  if (input === undefined) return {};
  const signals = checkObject(input, 'signals');
  const out: Record<string, number> = {};
  for (const [name, size] of Object.entries(signals)) {
    checkString(name, 'signals (name)');
    out[name] = checkInteger(size, `signals.${name}`, 1, 10_000);
  }
  return out;
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
  const { name: _name, handler: _handler, ...stored } = queue;
  return stored;
}
