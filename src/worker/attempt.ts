import type { EngineCore } from '../engine-core.js';
import { NonDeterminismError } from '../errors.js';
import type { Job } from '../model/job.js';
import type { AttemptTracing, JobTracing } from '../model/tracing.js';
import { toJsonText } from '../options/json.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import type { AttemptOutcome, ClaimedJob } from '../storage/storage.js';
import { RetryAfter } from '../workflow/retry-after.js';
import { LostOwnership, Suspension, type Wait } from '../workflow/suspend.js';
import { WorkflowContext } from '../workflow/workflow-context.js';
import { completeWithRetries } from './complete-in-transaction.js';
import { type FinishBuffer, Unwritten, type WrittenBatch } from './finish-buffer.js';
import {
  defer,
  type FinishedAttempt,
  fail,
  notWritten,
  park,
  reportLost,
  suspend,
} from './record-outcome.js';
import { abortOnTimeout, type Outcome, type Result, runHandler } from './run-handler.js';
import { Attempt, type AttemptHost } from './running-attempt.js';

/**
 * Run one claimed attempt to its outcome: completion (batched, or inside the caller's
 * completion transaction), failure with retry or not, suspension of a workflow, or nothing
 * when the job was lost (cancelled, reclaimed) or the worker is shutting down. The returned
 * promise settles once the outcome is written; `host.settled` fires as soon as the handler
 * is done, so the worker can start the next job while the write is batched with others (an
 * outcome written alone keeps the slot: see writesAlone), and `host.finished` when the
 * attempt is over, whatever its outcome.
 */
export async function runAttempt(
  core: EngineCore,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  finish: FinishBuffer,
  host: AttemptHost,
): Promise<void> {
  // No closure in this function captures its variables: one made here would put them all in
  // a heap context allocated for every job. Closures live in the helpers it calls, which are
  // module functions taking what they need as parameters; those on the success path are not
  // async, so they add no promise per job either.
  const { job, token } = claimed;
  const attempt = new Attempt(job, token, queue.timeoutSeconds, queue.globalConcurrency !== undefined);
  host.register(attempt);
  const timer = queue.timeoutSeconds === undefined ? null : abortOnTimeout(attempt, queue.timeoutSeconds);
  try {
    const ctx = new WorkflowContext({
      core,
      queue,
      job,
      token,
      attempt,
      notes: host.notes,
      tracing: core.tracing === null ? null : traceAttempt(core.tracing, claimed),
      woken: wokenFrom(claimed),
    });
    // A job whose limiters could not be applied fails without starting: its handler never runs.
    const outcome: Outcome =
      claimed.refusal === undefined ? await started(core, claimed, queue, ctx, attempt) : refused(claimed);
    if ('aborted' in outcome && outcome.aborted !== 'timeout') {
      ctx.tracing?.end('lost');
      return reportLost(core, claimed, outcome.aborted, attempt.handlerReturned);
    }
    const { abortedBy } = attempt;
    if (abortedBy === 'lost' || abortedBy === 'shutdown') {
      ctx.tracing?.end('lost');
      return reportLost(core, claimed, abortedBy);
    }
    const durationMs = performance.now() - attempt.startedAt;
    const result = finalResult(core, job, ctx, attempt, outcome);
    if (ctx.tracing !== null) endTrace(ctx.tracing, result);
    host.settled(attempt, writesAlone(ctx, result));
    // What the handler said of its job is written before its outcome (with the notes of every
    // attempt finishing meanwhile), its slot already free for the next job.
    if (ctx.notes !== null) await host.notes.settle(ctx.notes);
    // A workflow's run: what it did is written with its outcome. A plain job has none.
    const history = ctx.history === null ? null : ctx.history.text();
    if (!result.ok) {
      return await recordFailure({ core, finish, claimed, queue, durationMs, history }, result.error);
    }

    let outputText: string;
    try {
      // Most handlers return nothing: skip the checks (and their allocations) for that.
      outputText = result.value == null ? 'null' : toJsonText(result.value, 'output');
    } catch (error) {
      return await fail({ core, finish, claimed, queue, durationMs, history }, error);
    }
    if (ctx.completionHook) {
      let owned: boolean;
      try {
        owned = await completeWithRetries(
          core,
          claimed,
          queue,
          { output: outputText, history },
          ctx.completionHook,
          finish.window,
        );
      } catch (error) {
        return await fail({ core, finish, claimed, queue, durationMs, history }, error);
      }
      if (!owned) return reportLost(core, claimed, 'lost');
    } else {
      const written = await pushCompletion(finish, claimed, queue, outputText, history);
      const refused = afterCompletion(core, finish, claimed, queue, durationMs, written);
      if (refused !== undefined) await refused;
      return;
    }
    if (core.events.listenerCount('job:completed') > 0) emitCompleted(core, job, durationMs);
  } catch (error) {
    reportUnrecorded(core, job, error);
  } finally {
    if (timer) clearTimeout(timer);
    host.finished(attempt);
  }
}

/**
 * What the attempt ends with: the handler's result, or its timeout as a failure (a lost or
 * shut-down attempt has returned before). A suspension the handler caught wins over both:
 * the workflow still waits, and what the handler returned is ignored.
 */
function finalResult(
  core: EngineCore,
  job: Job,
  ctx: WorkflowContext,
  attempt: Attempt,
  outcome: Outcome,
): Result {
  const result: Result = 'aborted' in outcome ? { ok: false, error: attempt.abortError } : outcome;
  // A call that broke the record parks the job, whatever the handler made of it; so does a
  // run that ended without calls its record holds.
  const broken = ctx.nonDeterminism ?? (result.ok && ctx.suspension === null ? ctx.unmadeCalls() : null);
  if (broken) return { ok: false, error: broken };
  if (ctx.suspension && (result.ok || !(result.error instanceof Suspension))) {
    core.logger.warn('a handler caught a workflow suspension; the job suspends anyway', { jobId: job.id });
    return { ok: false, error: ctx.suspension };
  }
  return result;
}

/**
 * Whether the outcome is written by a statement of its own (a completion transaction, a
 * suspension) rather than in one of the finish buffer's batches, one statement at a time.
 * Such an attempt keeps its slot until the write is done, so a worker has no more of them
 * waiting for a connection than its concurrency: freed at once, the slots of fast handlers
 * queued hundreds of them for the pool, and the heartbeat, queued behind them, landed seconds
 * late, so the locks of a live worker lapsed and its jobs were recovered as stalled.
 */
function writesAlone(ctx: WorkflowContext, result: Result): boolean {
  return result.ok
    ? ctx.completionHook !== null
    : result.error instanceof Suspension ||
        result.error instanceof RetryAfter ||
        result.error instanceof NonDeterminismError;
}

/** Write a completion with others (the finish buffer's batches), then what afterCompletion does. */
export function writeCompletion(
  core: EngineCore,
  finish: FinishBuffer,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  outputText: string,
  durationMs: number,
): Promise<void> {
  return pushCompletion(finish, claimed, queue, outputText, null).then((written) =>
    afterCompletion(core, finish, claimed, queue, durationMs, written),
  );
}

/**
 * A batched completion was written, or not: say so, report a job lost meanwhile, and fail the
 * attempt when the database refused its output. Not async: on the common path it makes no
 * promise.
 */
function afterCompletion(
  core: EngineCore,
  finish: FinishBuffer,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  durationMs: number,
  written: WrittenBatch,
): Promise<void> | undefined {
  const status = written.resultOf(claimed.token);
  if (status === undefined) {
    reportLost(core, claimed, 'lost');
    return undefined;
  }
  if (status instanceof Unwritten) {
    return notWritten({ core, finish, claimed, queue, durationMs }, status, 'output');
  }
  if (core.events.listenerCount('job:completed') > 0) emitCompleted(core, claimed.job, durationMs);
  return undefined;
}

/** Hand the completion to the finish buffer, to be written with others; resolves to what the batch wrote. */
function pushCompletion(
  finish: FinishBuffer,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  outputText: string,
  history: string | null,
): Promise<WrittenBatch> {
  const outcome: AttemptOutcome = {
    id: claimed.job.id,
    token: claimed.token,
    ok: true,
    output: outputText,
    dropCheckpoints: queue.deleteCheckpointsOnComplete,
  };
  // Only a workflow's run has a history: a plain job's outcome keeps its shape and size.
  if (history !== null) outcome.history = history;
  return finish.push(outcome);
}

/** A failed attempt's outcome: a workflow suspends, a lost job is left alone, anything else fails. */
function recordFailure(attempt: FinishedAttempt, error: unknown): Promise<void> | void {
  const { core, claimed, history } = attempt;
  if (error instanceof Suspension) return suspend(core, claimed, error, history ?? null);
  if (error instanceof RetryAfter) return defer(core, claimed, error, history ?? null);
  if (error instanceof NonDeterminismError) return park(core, claimed, error, history ?? null);
  if (error instanceof LostOwnership) return reportLost(core, claimed, 'lost');
  return fail(attempt, error);
}

/** The wait a claimed run resumes from: a parked workflow's, none for a fresh attempt. */
function wokenFrom(claimed: ClaimedJob): Wait | null {
  const { wait } = claimed;
  return wait !== null && typeof wait.kind === 'string' ? (wait as unknown as Wait) : null;
}

/**
 * The outcome could not be written (a suspension, say, while the database is unreachable): the
 * lock lapses and the maintenance tick retries the job. Nothing is lost; report it.
 */
function reportUnrecorded(core: EngineCore, job: Job, error: unknown): void {
  core.events.emit('error', { scope: 'worker', error });
  core.logger.error('could not record the outcome of an attempt', { jobId: job.id, error: String(error) });
}

function started(
  core: EngineCore,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  ctx: WorkflowContext,
  attempt: Attempt,
): Outcome | Promise<Outcome> {
  if (core.events.listenerCount('job:started') > 0) emitStarted(core, claimed);
  const { tracing } = ctx;
  if (tracing !== null) return tracing.run(() => runHandler(queue, claimed.job, ctx, attempt));
  return runHandler(queue, claimed.job, ctx, attempt);
}

/**
 * The span of an attempt: a child of the span its job was added in on its first run, a new
 * trace linked to it on a retry, a recovery after a stall or a workflow's resume.
 */
function traceAttempt(tracing: JobTracing, claimed: ClaimedJob): AttemptTracing {
  const { job } = claimed;
  const relation = job.attempts > 1 || claimed.wait !== null ? 'link' : 'child';
  return tracing.startAttempt(job, relation);
}

function endTrace(tracing: AttemptTracing, result: Result): void {
  if (result.ok) tracing.end('completed');
  else if (result.error instanceof Suspension) tracing.end('suspended');
  else if (result.error instanceof RetryAfter) tracing.end('deferred');
  else if (result.error instanceof LostOwnership) tracing.end('lost');
  else tracing.end('failed', result.error);
}

function refused(claimed: ClaimedJob): Outcome {
  return { ok: false, error: claimed.refusal };
}

export function emitStarted(core: EngineCore, claimed: ClaimedJob): void {
  core.events.emit('job:started', {
    id: claimed.job.id,
    queue: claimed.job.queue,
    attempt: claimed.job.attempts,
    pickupLatencyMs: claimed.pickupLatencyMs,
  });
}

function emitCompleted(core: EngineCore, job: Job, durationMs: number): void {
  core.events.emit('job:completed', { id: job.id, queue: job.queue, durationMs });
}
