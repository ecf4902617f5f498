/**
 * How an attempt's other outcomes are written and reported: suspension, failure (also
 * standing in for a refused outcome), and loss.
 */
import type { EngineCore } from '../engine-core.js';
import { type NonDeterminismError, OutcomeRefusedError, TidemarkError } from '../errors.js';
import { backoffSeconds, type ResolvedQueue } from '../queues/queue-options.js';
import type { ClaimedJob } from '../storage/storage.js';
import type { RetryAfter } from '../workflow/retry-after.js';
import type { Suspension } from '../workflow/suspend.js';
import { type FinishBuffer, Unwritten } from './finish-buffer.js';
import type { AbortReason } from './running-attempt.js';
import { NonRetryableError, serializeError } from './serialize-error.js';

/** Park a workflow job until what it waits for; the job was lost if its lock is no longer ours. */
export async function suspend(
  core: EngineCore,
  { job, token }: ClaimedJob,
  suspension: Suspension,
  history: string | null,
): Promise<void> {
  const { wait, wakeAt } = suspension;
  const kept = await core.storage.attempts.suspendJob(job.id, token, wait, wakeAt, history);
  if (!kept) return reportLost(core, { job, token }, 'lost');
  core.events.emit('job:suspended', {
    id: job.id,
    queue: job.queue,
    reason: suspension.wait.kind,
  });
}

/**
 * Park a workflow whose code no longer matches its record as `paused`, the error saying what
 * the record expected and what the code did; the job was lost if its lock is no longer ours.
 */
export async function park(
  core: EngineCore,
  { job, token }: ClaimedJob,
  error: NonDeterminismError,
  history: string | null,
): Promise<void> {
  const kept = await core.storage.attempts.parkJob(job.id, token, serializeError(error), history);
  if (!kept) return reportLost(core, { job, token }, 'lost');
  core.logger.warn('a workflow no longer matches its record; parked as paused', {
    jobId: job.id,
    error: error.message,
  });
  core.events.emit('job:paused', { id: job.id, queue: job.queue, error });
}

/** Put the job back for later (`ctx.retryAfter`); the job was lost if its lock is no longer ours. */
export async function defer(
  core: EngineCore,
  claimed: ClaimedJob,
  retry: RetryAfter,
  history: string | null,
): Promise<void> {
  const { job, token } = claimed;
  const buckets = bucketsToDrain(claimed, retry.drainLimiter);
  if (buckets.length > 0) await core.storage.limiters.drainBuckets(buckets, retry.seconds);
  const kept = await core.storage.attempts.deferJob(job.id, token, retry.seconds, retry.reason, history);
  if (!kept) return reportLost(core, { job, token }, 'lost');
  core.events.emit('job:deferred', {
    id: job.id,
    queue: job.queue,
    seconds: retry.seconds,
    reason: retry.reason,
  });
}

/** The buckets `retryAfter({ drainLimiter })` empties: the job's own, or one limiter's. */
function bucketsToDrain(claimed: ClaimedJob, drain: boolean | string): { name: string; key: string }[] {
  if (drain === false) return [];
  const taken = claimed.limits ?? [];
  if (drain === true) return taken.map(({ name, key }) => ({ name, key }));
  return [{ name: drain, key: taken.find((entry) => entry.name === drain)?.key ?? '' }];
}

/** An attempt whose outcome is being recorded: what ran, where its outcome goes, how long it took. */
export interface FinishedAttempt {
  core: EngineCore;
  finish: FinishBuffer;
  claimed: ClaimedJob;
  queue: ResolvedQueue;
  durationMs: number;
  /** The run's history events (a workflow's), written with its outcome; none for a plain job. */
  history?: string | null;
}

/** How a failure is recorded: whether it may be retried, and whether it replaces a refused outcome. */
export interface FailureOptions {
  retryable?: boolean;
  /** This failure stands in for an outcome the database refused: a second refusal gives up. */
  refusedBefore?: boolean;
}

/** A Tidemark error that says another attempt would fail the same way (`retryable: false`). */
function refusesRetry(error: TidemarkError): boolean {
  return 'retryable' in error && error.retryable === false;
}

/** Record a failed attempt, with a retry when the queue's policy and the error allow one. */
export async function fail(
  attempt: FinishedAttempt,
  error: unknown,
  options: FailureOptions = {},
): Promise<void> {
  const { core, finish, claimed, queue, durationMs, history } = attempt;
  const { job, token } = claimed;
  const retryable =
    options.retryable ??
    !(error instanceof NonRetryableError || (error instanceof TidemarkError && refusesRetry(error)));
  const status = (
    await finish.push({
      id: job.id,
      token,
      ok: false,
      error: serializeError(error),
      retryDelaySeconds: retryable ? backoffSeconds(queue.backoff, job.attempts) : null,
      history,
    })
  ).resultOf(token);
  if (status === undefined) return reportLost(core, claimed, 'lost');
  if (status instanceof Unwritten) {
    return notWritten(attempt, status, 'error', { retryable, refusedBefore: options.refusedBefore });
  }
  core.events.emit('job:failed', {
    id: job.id,
    queue: job.queue,
    error: error instanceof Error ? error : new Error(String(error), { cause: error }),
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
  attempt: FinishedAttempt,
  unwritten: Unwritten,
  what: 'output' | 'error',
  options: FailureOptions = {},
): Promise<void> {
  const { core, claimed } = attempt;
  const { job } = claimed;
  if (unwritten.refused && !options.refusedBefore) {
    const error = new OutcomeRefusedError(job.id, what, unwritten.error);
    return fail(attempt, error, { retryable: options.retryable ?? true, refusedBefore: true });
  }
  core.events.emit('error', { scope: 'worker', error: unwritten.error });
  if (unwritten.refused) {
    core.logger.error(
      'the database refused the failure recorded for a refused outcome too; the job runs again once its lock lapses',
      {
        jobId: job.id,
        error: String(unwritten.error),
      },
    );
  }
}

/**
 * The attempt lost its job: say so, and when the job was cancelled, clear the lock the cancel
 * left on it (cancelSubtree) once the handler has returned (`handler`, when it may still run),
 * so the job no longer holds its key's slot. The release matches nothing when the job was
 * reclaimed rather than cancelled; if the worker dies first, the lock lapses instead.
 */
export function reportLost(
  core: EngineCore,
  { job, token }: Pick<ClaimedJob, 'job' | 'token'>,
  reason: AbortReason,
  handler: PromiseLike<unknown> | null = null,
): void {
  if (reason !== 'lost') return;
  core.events.emit('job:lost', { id: job.id, queue: job.queue });
  const release = () =>
    core.storage.attempts.releaseCancelled(job.id, token).catch((error: unknown) =>
      core.logger.warn('could not release a cancelled job; its lock will lapse', {
        jobId: job.id,
        error: String(error),
      }),
    );
  if (handler === null) void release();
  else void Promise.resolve(handler).then(release, release);
}
