/**
 * Batch handlers: a queue whose handler takes its jobs in batches (`batch` on `tm.createQueue`).
 * See flow-control.md, *Batch handlers*.
 */
import type { Job } from './job.js';

/** A queue's `batch` option. */
export interface BatchOptions<Data = unknown> {
  /** The most jobs one handler call takes (1 to 1,000). */
  maxSize: number;
  /**
   * How long the first job of a batch waits for the batch to fill before the handler runs with
   * what it has, in seconds (0 to 3,600; 0: a batch runs with what one claim brought).
   */
  maxWaitSeconds: number;
  /**
   * Batches never mix keys: `true` groups by the jobs' concurrency `key`, a function by what it
   * gives for a job's data (a string of at most 512 characters).
   */
  key?: true | ((data: Data) => string);
}

/** What a batch handler gives for one job of its batch: its output, or the error it fails with. */
export type BatchOutcome<Output = unknown> = { id: string; output?: Output } | { id: string; error: unknown };

/** What a batch handler gets beside its jobs. */
export interface BatchContext {
  /** Aborted when the batch times out (the queue's `timeoutSeconds`) or the worker stops. */
  readonly signal: AbortSignal;
  /** The worker running the batch. */
  readonly workerId: string;
  /** Whether the job was cancelled (or otherwise lost) while the batch ran: its outcome is dropped. */
  isCancelled(id: string): boolean;
}

/**
 * A queue's handler when it has `batch`: it takes the batch's jobs and gives an outcome per
 * job; a job left out fails with `BatchOutcomeError`, and a throw fails every job of the batch.
 */
export type BatchHandler<Data = unknown, Output = unknown> = (
  jobs: Job<Data, Output>[],
  ctx: BatchContext,
) => Promise<BatchOutcome<Output>[]> | BatchOutcome<Output>[];

/** A queue's `batch`, checked: the key as a function of the job, or none. */
export interface BatchRule {
  maxSize: number;
  maxWaitSeconds: number;
  key?: (job: Job) => string | null;
}
