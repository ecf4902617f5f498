/** Running a job's handler: its result raced against the attempt's abort (lost, shutdown, timeout). */

import { hasProperties } from '../model/guards.js';
import type { Job } from '../model/job.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import type { WorkflowContext } from '../workflow/workflow-context.js';
import type { AbortReason, Attempt } from './running-attempt.js';

/** What the handler gave: its value or its error. */
export type Result = { ok: true; value: unknown } | { ok: false; error: unknown };
/** The handler's result, or the abort that came first. */
export type Outcome = Result | { aborted: AbortReason };

/** Abort the attempt once its queue's timeout has passed; the caller clears the timer. */
export function abortOnTimeout(attempt: Attempt, seconds: number): NodeJS.Timeout {
  return setTimeout(() => attempt.abort('timeout'), seconds * 1000);
}

/**
 * Call the handler. A promise it returns races the attempt's abort; a value it returns
 * synchronously needs no race (aborts arrive from timers and notifications, never during
 * synchronous code), and a synchronous throw is its outcome.
 */
export function runHandler(
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
  attempt.handlerReturned = value;
  return new Promise<Outcome>((resolve) => {
    attempt.onAbort = (reason) => resolve({ aborted: reason });
    value.then(
      (v) => resolve({ ok: true, value: v }),
      (error) => resolve({ ok: false, error }),
    );
  });
}

/** Whether a handler gave a promise (or any thenable) rather than its value. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return hasProperties(value) && typeof value.then === 'function';
}
