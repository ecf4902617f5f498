/**
 * How an attempt's other outcomes are written and reported: suspension, failure (also
 * standing in for a refused outcome), and loss.
 */
import type { EngineCore } from '../engine-core.js';
import { OutcomeRefusedError } from '../errors.js';
import { backoffSeconds, type ResolvedQueue } from '../queues/queue-options.js';
import type { ClaimedJob } from '../storage/storage.js';
import type { Suspension } from '../workflow/suspend.js';
import { type FinishBuffer, Unwritten } from './finish-buffer.js';
import type { AbortReason } from './running-attempt.js';
import { NonRetryableError, serializeError } from './serialize-error.js';

/** Park a workflow job until what it waits for; the job was lost if its lock is no longer ours. */
export async function suspend(
  core: EngineCore,
  { job, token }: ClaimedJob,
  suspension: Suspension,
): Promise<void> {
  const kept = await core.storage.suspendJob(job.id, token, suspension.wait, suspension.wakeAt);
  if (!kept) return reportLost(core, job.id, job.queue, 'lost');
  core.events.emit('job:suspended', {
    id: job.id,
    queue: job.queue,
    reason: suspension.wait.kind as 'sleep' | 'signal' | 'child',
  });
}

/**
 * Record a failed attempt. `refusedBefore`: this failure stands in for an outcome the database
 * refused, so a second refusal gives up rather than trying a third outcome.
 */
export async function fail(
  core: EngineCore,
  finish: FinishBuffer,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  error: unknown,
  durationMs: number,
  retryable = !(error instanceof NonRetryableError),
  refusedBefore = false,
): Promise<void> {
  const { job, token } = claimed;
  const status = (
    await finish.push({
      id: job.id,
      token,
      ok: false,
      error: serializeError(error),
      retryDelaySeconds: retryable ? backoffSeconds(queue.backoff, job.attempts) : null,
    })
  ).get(job.id);
  if (status === undefined) return reportLost(core, job.id, job.queue, 'lost');
  if (status instanceof Unwritten) {
    return notWritten(core, finish, claimed, queue, status, 'error', durationMs, retryable, refusedBefore);
  }
  core.events.emit('job:failed', {
    id: job.id,
    queue: job.queue,
    error,
    willRetry: status === 'retry',
    durationMs,
  });
}

/**
 * An outcome that was not written. Refused by the database: the attempt fails with an
 * OutcomeRefusedError instead (once; the queue's retry policy applies). Given up at shutdown:
 * the buffer has logged it, and the job runs again once its lock lapses.
 */
export async function notWritten(
  core: EngineCore,
  finish: FinishBuffer,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  status: Unwritten,
  what: 'output' | 'error',
  durationMs: number,
  retryable: boolean,
  refusedBefore: boolean,
): Promise<void> {
  const { job } = claimed;
  if (status.refused && !refusedBefore) {
    const error = new OutcomeRefusedError(job.id, what, status.error);
    return fail(core, finish, claimed, queue, error, durationMs, retryable, true);
  }
  core.events.emit('error', { scope: 'worker', error: status.error });
  if (status.refused) {
    core.logger.error(
      'the database refused the failure recorded for a refused outcome too; the job runs again once its lock lapses',
      {
        jobId: job.id,
        error: String(status.error),
      },
    );
  }
}

export function reportLost(core: EngineCore, id: string, queue: string, reason: AbortReason): void {
  if (reason === 'lost') core.events.emit('job:lost', { id, queue });
}
