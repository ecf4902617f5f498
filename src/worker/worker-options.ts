import { InvalidOptionError } from '../errors.js';
import { checkBatchSize, DEFAULT_BATCH_SIZE } from '../options/batch-size.js';
import { checkInteger, checkKnownKeys, checkObject, checkSeconds, checkString } from '../options/check.js';
import { AUTO_PREFETCH_MAX } from './prefetch.js';

/** Options of the retention and unique-lock sweeps on a worker. */
export interface SweepOptions {
  /** Default 3600. */
  intervalSeconds?: number;
  /** Rows per delete statement; 1..10000 (larger values are clamped with one warning). Default 1000. */
  batchSize?: number;
}

/** Options of `tm.worker(...)`. */
export interface WorkerOptions {
  /** Queues to work; default every queue with a handler in this process. */
  queues?: string[];
  /** Jobs run at once on this worker. Default 10. */
  concurrency?: number;
  /** Retention sweep on this worker; `false` turns it off on this node. */
  sweep?: SweepOptions | false;
  /** Expired unique-lock sweep; on even when retention is off; `false` turns it off on this node. */
  uniqueLockSweep?: SweepOptions | false;
  /** Maintenance tick (stalled recovery, promotion, expiry, schedules). Default 5. */
  tickIntervalSeconds?: number;
  /** Backstop poll when no notification arrives. Default 1. */
  pollIntervalSeconds?: number;
  /** How long a claim owns a job without a heartbeat. Default 60. Heartbeats run every third of it. */
  lockSeconds?: number;
  /** `stop()` waits this long for running handlers before releasing their jobs. Default 30. */
  shutdownTimeoutSeconds?: number;
  /**
   * Jobs held claimed beyond the free slots, so fast jobs never wait on a claim round trip.
   * 'auto' (default) holds about four claim round trips of work at the current rate, up to
   * 1000, and none for slow jobs; a number holds that many; 0 claims only for free slots.
   * Held jobs are covered by heartbeats and released on stop.
   */
  prefetch?: number | 'auto';
  /** Most jobs claimed per statement. Default: the concurrency plus the prefetch bound (at most 10000). */
  fetchBatchSize?: number;
  /** A name for logs and `locked_by`; default host:pid:random. */
  id?: string;
}

export interface ResolvedSweep {
  intervalSeconds: number;
  batchSize: number;
}

export interface ResolvedWorkerOptions {
  queues?: string[];
  concurrency: number;
  sweep: ResolvedSweep | false;
  uniqueLockSweep: ResolvedSweep | false;
  tickIntervalSeconds: number;
  pollIntervalSeconds: number;
  lockSeconds: number;
  shutdownTimeoutSeconds: number;
  prefetch: number | 'auto';
  fetchBatchSize: number;
  id?: string;
}

export const DEFAULT_SWEEP: ResolvedSweep = Object.freeze({
  intervalSeconds: 3_600,
  batchSize: DEFAULT_BATCH_SIZE,
});

const KNOWN = [
  'queues',
  'concurrency',
  'sweep',
  'uniqueLockSweep',
  'tickIntervalSeconds',
  'pollIntervalSeconds',
  'lockSeconds',
  'shutdownTimeoutSeconds',
  'prefetch',
  'fetchBatchSize',
  'id',
] as const;

/** Validate worker options. Warnings (a clamped batch size) are returned for the worker to log once. */
export function resolveWorkerOptions(input: unknown = {}): {
  options: ResolvedWorkerOptions;
  warnings: string[];
} {
  const options = checkObject(input, 'worker');
  checkKnownKeys(options, '', KNOWN);
  const warnings: string[] = [];
  let queues: string[] | undefined;
  if (options.queues !== undefined) {
    if (!Array.isArray(options.queues) || options.queues.length === 0) {
      throw new InvalidOptionError('queues', 'a non-empty array of queue names', options.queues);
    }
    queues = options.queues.map((q, i) => checkString(q, `queues[${i}]`));
  }
  const concurrency =
    options.concurrency === undefined ? 10 : checkInteger(options.concurrency, 'concurrency', 1, 10_000);
  const prefetch =
    options.prefetch === undefined || options.prefetch === 'auto'
      ? 'auto'
      : checkInteger(options.prefetch, 'prefetch', 0, 10_000);
  const lockSeconds =
    options.lockSeconds === undefined
      ? 60
      : checkSeconds(options.lockSeconds, 'lockSeconds', { min: 1, max: 86_400 });
  return {
    warnings,
    options: {
      queues,
      concurrency,
      sweep: resolveSweep(options.sweep, 'sweep', warnings),
      uniqueLockSweep: resolveSweep(options.uniqueLockSweep, 'uniqueLockSweep', warnings),
      tickIntervalSeconds:
        options.tickIntervalSeconds === undefined
          ? 5
          : checkSeconds(options.tickIntervalSeconds, 'tickIntervalSeconds', { min: 0.05, max: 86_400 }),
      pollIntervalSeconds:
        options.pollIntervalSeconds === undefined
          ? 1
          : checkSeconds(options.pollIntervalSeconds, 'pollIntervalSeconds', { min: 0.01, max: 3_600 }),
      lockSeconds,
      shutdownTimeoutSeconds:
        options.shutdownTimeoutSeconds === undefined
          ? 30
          : checkSeconds(options.shutdownTimeoutSeconds, 'shutdownTimeoutSeconds', { max: 86_400 }),
      prefetch,
      fetchBatchSize:
        options.fetchBatchSize === undefined
          ? Math.min(concurrency + (prefetch === 'auto' ? AUTO_PREFETCH_MAX : prefetch), 10_000)
          : checkInteger(options.fetchBatchSize, 'fetchBatchSize', 1, 10_000),
      id: options.id === undefined ? undefined : checkString(options.id, 'id'),
    },
  };
}

export function resolveSweep(input: unknown, field: string, warnings: string[]): ResolvedSweep | false {
  if (input === false) return false;
  if (input === undefined) return DEFAULT_SWEEP;
  const sweep = checkObject(input, field);
  checkKnownKeys(sweep, field, ['intervalSeconds', 'batchSize']);
  const intervalSeconds =
    sweep.intervalSeconds === undefined
      ? DEFAULT_SWEEP.intervalSeconds
      : checkSeconds(sweep.intervalSeconds, `${field}.intervalSeconds`, {
          exclusiveMin: true,
          max: 31_536_000,
        });
  if (sweep.batchSize === undefined) return { intervalSeconds, batchSize: DEFAULT_SWEEP.batchSize };
  const { batchSize, warning } = checkBatchSize(sweep.batchSize, `${field}.batchSize`);
  if (warning) warnings.push(warning);
  return { intervalSeconds, batchSize };
}
