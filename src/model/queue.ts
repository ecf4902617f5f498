import type { FrozenRetention } from './job.js';
import type { StoredKeysRule } from './keys.js';
import type { StoredQueueLimiter } from './limiter.js';

/** Exponential backoff between attempts: `delaySeconds * factor^(attempt-1)`, capped, with jitter. */
export interface BackoffOptions {
  delaySeconds: number;
  /** Default 2. */
  factor?: number;
  /** Default 3600. */
  maxDelaySeconds?: number;
  /** `true` (default) spreads each delay randomly over [delay/2, delay]; `false` keeps it exact. */
  jitter?: boolean;
}

/**
 * The part of a queue's definition stored in the database (`queues.options`), so every
 * process sees it: what a process defining the queue writes.
 */
export interface StoredQueueOptions {
  /** Undefined when the queue sets no policy (the engine's applies). */
  retention?: FrozenRetention;
  concurrency?: number;
  maxAttempts: number;
  timeoutSeconds?: number;
  backoff: Required<BackoffOptions>;
  signals: Record<string, number>;
  deleteCheckpointsOnComplete: boolean;
  /** Flow control by key (`createQueue({ keys })`), normalised. */
  keys?: StoredKeysRule;
  /** At most this many of the queue's jobs run at once, cluster-wide. */
  globalConcurrency?: number;
  /** The rate limiters the queue's jobs take tokens from (`createQueue({ limiters })`). */
  limiters?: StoredQueueLimiter[];
  /** The code version stamped on each job added to the queue (`jobs.version`). */
  version?: string;
}
