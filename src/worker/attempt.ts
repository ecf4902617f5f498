import type { EngineCore } from '../engine-core.js';
import { JobTimeoutError, OutcomeRefusedError } from '../errors.js';
import { toJsonText } from '../options/json.js';
import { backoffSeconds, type ResolvedQueue } from '../queues/queue-options.js';
import type { Queryable } from '../storage/driver/driver.js';
import type { Job } from '../storage/rows.js';
import type { ClaimedJob } from '../storage/storage.js';
import { LostOwnership, Suspension } from '../workflow/suspend.js';
import { WorkflowContext } from '../workflow/workflow-context.js';
import { isConnectionError } from './database-errors.js';
import { type FinishBuffer, Unwritten } from './finish-buffer.js';
import type { RetryWindow } from './retry-window.js';
import { NonRetryableError, serializeError } from './serialize-error.js';

/** Why a running attempt was aborted from outside its handler. */
export type AbortReason = 'lost' | 'shutdown' | 'timeout';

/** One running attempt, as the worker tracks it. */
export interface RunningAttempt {
  id: string;
  token: string;
  queue: string;
  /** Set by the worker once it has given the attempt's slot back. */
  slotFree: boolean;
  abort(reason: AbortReason): void;
}

/**
 * What runAttempt tells the worker, as methods of one object rather than closures made per
 * job: the attempt started, its handler settled (its slot is free while the outcome is
 * written in a batch), and it is over.
 */
export interface AttemptHost {
  register(attempt: RunningAttempt): void;
  settled(attempt: RunningAttempt): void;
  finished(attempt: RunningAttempt): void;
}

/**
 * The worker's handle on one attempt: its abort state and the handler's abort signal. A
 * class rather than an object literal with getters and closures: one is made per job, and
 * literals with accessors were a large share of a no-op job's allocations.
 */
class Attempt implements RunningAttempt {
  readonly id: string;
  readonly token: string;
  readonly queue: string;
  slotFree = false;
  abortedBy: AbortReason | null = null;
  abortError: Error | null = null;
  /** Settles the attempt's race between its handler and an abort. */
  onAbort: ((reason: AbortReason) => void) | null = null;
  private controller: AbortController | null = null;

  constructor(
    job: Job,
    token: string,
    private readonly timeoutSeconds: number | undefined,
  ) {
    this.id = job.id;
    this.token = token;
    this.queue = job.queue;
  }

  /**
   * The handler's abort signal, made on first use: most handlers never read ctx.signal, and
   * an AbortController per job is a measurable share of a no-op job's cost.
   */
  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortError) this.controller.abort(this.abortError);
    }
    return this.controller.signal;
  }

  abort(reason: AbortReason): void {
    if (this.abortedBy) return;
    this.abortedBy = reason;
    this.abortError =
      reason === 'timeout' ? new JobTimeoutError(this.timeoutSeconds ?? 0) : new LostOwnership(this.id);
    this.controller?.abort(this.abortError);
    this.onAbort?.(reason);
  }
}

/**
 * Run one claimed attempt to its outcome: completion (batched, or inside the caller's
 * completion transaction), failure with retry or not, suspension of a workflow, or nothing
 * when the job was lost (cancelled, reclaimed) or the worker is shutting down. The returned
 * promise settles once the outcome is written; `host.settled` fires as soon as the handler
 * is done, so the worker can start the next job while the write is batched with others, and
 * `host.finished` when the attempt is over, whatever its outcome.
 */
export async function runAttempt(
  core: EngineCore,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  finish: FinishBuffer,
  host: AttemptHost,
): Promise<void> {
  // No closure in this function captures its variables: one made here would put them all in
  // a heap context allocated for every job. Closures live in the helpers below.
  const { job, token } = claimed;
  const attempt = new Attempt(job, token, queue.timeoutSeconds);
  host.register(attempt);
  const timer = queue.timeoutSeconds === undefined ? null : abortOnTimeout(attempt, queue.timeoutSeconds);
  try {
    const started = performance.now();
    const ctx = new WorkflowContext({
      workflow: core.workflow,
      registry: core.registry,
      insertDefaults: core.insertDefaults,
      once: core.once,
      queue,
      job,
      token,
      attempt,
    });
    if (core.events.listenerCount('job:started') > 0) emitStarted(core, claimed);
    const outcome = await runHandler(queue, job, ctx, attempt);
    let result: Result;
    if ('aborted' in outcome) {
      if (outcome.aborted !== 'timeout') return reportLost(core, job.id, job.queue, outcome.aborted);
      result = { ok: false, error: attempt.abortError };
    } else {
      result = outcome;
    }
    host.settled(attempt);
    const { abortedBy } = attempt;
    if (abortedBy === 'lost' || abortedBy === 'shutdown')
      return reportLost(core, job.id, job.queue, abortedBy);
    const durationMs = performance.now() - started;
    if (ctx.suspension && (result.ok || !(result.error instanceof Suspension))) {
      // The handler caught its suspension: the workflow still waits; what it returned is ignored.
      core.logger.warn('a handler caught a workflow suspension; the job suspends anyway', { jobId: job.id });
      result = { ok: false, error: ctx.suspension };
    }

    if (result.ok) {
      let outputText: string;
      try {
        // Most handlers return nothing: skip the checks (and their allocations) for that.
        outputText = result.value == null ? 'null' : toJsonText(result.value, 'output');
      } catch (error) {
        return await fail(core, finish, claimed, queue, error, durationMs);
      }
      if (ctx.completionHook) {
        let owned: boolean;
        try {
          owned = await completeWithRetries(
            core,
            claimed,
            queue,
            outputText,
            ctx.completionHook,
            finish.window,
          );
        } catch (error) {
          return await fail(core, finish, claimed, queue, error, durationMs);
        }
        if (!owned) return reportLost(core, job.id, job.queue, 'lost');
      } else {
        const status = (
          await finish.push({
            id: job.id,
            token,
            ok: true,
            output: outputText,
            dropCheckpoints: queue.deleteCheckpointsOnComplete,
          })
        ).get(job.id);
        if (typeof status !== 'string') {
          if (status === undefined) return reportLost(core, job.id, job.queue, 'lost');
          return await notWritten(core, finish, claimed, queue, status, 'output', durationMs, true, false);
        }
      }
      if (core.events.listenerCount('job:completed') > 0) {
        core.events.emit('job:completed', { id: job.id, queue: job.queue, durationMs });
      }
      return;
    }

    const error = result.error;
    if (error instanceof Suspension) return await suspend(core, claimed, error);
    if (error instanceof LostOwnership) return reportLost(core, job.id, job.queue, 'lost');
    await fail(core, finish, claimed, queue, error, durationMs);
  } catch (error) {
    // The outcome could not be written (a suspension, say, while the database is unreachable):
    // the lock lapses and the maintenance tick retries the job. Nothing is lost; report it.
    core.events.emit('error', { scope: 'worker', error });
    core.logger.error('could not record the outcome of an attempt', { jobId: job.id, error: String(error) });
  } finally {
    if (timer) clearTimeout(timer);
    host.finished(attempt);
  }
}

function abortOnTimeout(attempt: Attempt, seconds: number): NodeJS.Timeout {
  return setTimeout(() => attempt.abort('timeout'), seconds * 1000);
}

function emitStarted(core: EngineCore, claimed: ClaimedJob): void {
  core.events.emit('job:started', {
    id: claimed.job.id,
    queue: claimed.job.queue,
    attempt: claimed.job.attempts,
    pickupLatencyMs: claimed.pickupLatencyMs,
  });
}

/**
 * Call the handler. A promise it returns races the attempt's abort; a value it returns
 * synchronously needs no race (aborts arrive from timers and notifications, never during
 * synchronous code), and a synchronous throw is its outcome.
 */
function runHandler(
  queue: ResolvedQueue,
  job: Job,
  ctx: WorkflowContext,
  attempt: Attempt,
): Outcome | Promise<Outcome> {
  let value: unknown;
  try {
    value = (queue.handler as NonNullable<ResolvedQueue['handler']>)(job, ctx);
  } catch (error) {
    return { ok: false, error };
  }
  if (!isThenable(value)) return { ok: true, value };
  return new Promise<Outcome>((resolve) => {
    attempt.onAbort = (reason) => resolve({ aborted: reason });
    value.then(
      (v) => resolve({ ok: true, value: v }),
      (error) => resolve({ ok: false, error }),
    );
  });
}

/**
 * Complete inside the completion hook's transaction, again while the database cannot be
 * reached: a lost connection rolled back the completion and the hook's writes together, and
 * the handler's result should not be thrown away for it. Other errors (the hook's own) fail
 * the attempt.
 */
async function completeWithRetries(
  core: EngineCore,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  outputText: string,
  hook: (tx: Queryable) => Promise<void> | void,
  window: RetryWindow,
): Promise<boolean> {
  for (let failures = 1; ; failures++) {
    try {
      return await completeInTransaction(core, claimed, queue, outputText, hook);
    } catch (error) {
      if (!isConnectionError(error) || !(await window.beforeRetry(failures))) throw error;
    }
  }
}

/** Complete inside a transaction the handler's completion hook shares; false when the job was lost. */
function completeInTransaction(
  core: EngineCore,
  { job, token }: ClaimedJob,
  queue: ResolvedQueue,
  outputText: string,
  hook: (tx: Queryable) => Promise<void> | void,
): Promise<boolean> {
  return core.storage.driver.transaction(async (tx) => {
    const ok = await core.storage.completeOne(
      tx,
      job.id,
      token,
      outputText,
      queue.deleteCheckpointsOnComplete,
    );
    if (ok) await hook(tx);
    return ok;
  });
}

async function suspend(core: EngineCore, { job, token }: ClaimedJob, suspension: Suspension): Promise<void> {
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
async function fail(
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
async function notWritten(
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

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };
type Outcome = Result | { aborted: AbortReason };

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function reportLost(core: EngineCore, id: string, queue: string, reason: AbortReason): void {
  if (reason === 'lost') core.events.emit('job:lost', { id, queue });
}
