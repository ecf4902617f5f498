import type { EngineCore } from '../engine-core.js';
import { toJsonText } from '../options/json.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import type { ClaimedJob } from '../storage/storage.js';
import { LostOwnership, Suspension } from '../workflow/suspend.js';
import { WorkflowContext } from '../workflow/workflow-context.js';
import { completeWithRetries } from './complete-in-transaction.js';
import { type FinishBuffer, Unwritten } from './finish-buffer.js';
import { fail, notWritten, reportLost, suspend } from './record-outcome.js';
import { abortOnTimeout, type Result, runHandler } from './run-handler.js';
import { Attempt, type AttemptHost } from './running-attempt.js';

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
  // a heap context allocated for every job. Closures live in the helpers it calls.
  const { job, token } = claimed;
  const attempt = new Attempt(job, token, queue.timeoutSeconds);
  host.register(attempt);
  const timer = queue.timeoutSeconds === undefined ? null : abortOnTimeout(attempt, queue.timeoutSeconds);
  try {
    const started = performance.now();
    const ctx = new WorkflowContext({
      core,
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
        return await fail({ core, finish, claimed, queue, durationMs }, error);
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
          return await fail({ core, finish, claimed, queue, durationMs }, error);
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
        if (status === undefined) return reportLost(core, job.id, job.queue, 'lost');
        if (status instanceof Unwritten) {
          return await notWritten({ core, finish, claimed, queue, durationMs }, status, 'output');
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
    await fail({ core, finish, claimed, queue, durationMs }, error);
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

function emitStarted(core: EngineCore, claimed: ClaimedJob): void {
  core.events.emit('job:started', {
    id: claimed.job.id,
    queue: claimed.job.queue,
    attempt: claimed.job.attempts,
    pickupLatencyMs: claimed.pickupLatencyMs,
  });
}
