import type { EngineCore } from '../engine-core.js';
import { BatchOutcomeError } from '../errors.js';
import type { BatchContext, BatchHandler } from '../model/batch.js';
import { isObject } from '../model/guards.js';
import { toJsonText } from '../options/json.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import type { ClaimedJob } from '../storage/storage.js';
import { emitStarted, writeCompletion } from './attempt.js';
import type { FinishBuffer } from './finish-buffer.js';
import { fail, reportLost } from './record-outcome.js';
import { isThenable, type Result } from './run-handler.js';
import { type AbortReason, Attempt, type AttemptHost } from './running-attempt.js';

/**
 * Run a batch of claimed jobs of one queue through its batch handler, then write each job's
 * outcome as a single job's would be: a completion batched with others, a failure with its
 * own retry and backoff. Each job is an attempt of its own (its lock kept by the heartbeat,
 * cancelled alone); the batch holds one slot, freed when the handler is done. A timeout or a
 * worker's stop ends the whole batch; a job cancelled meanwhile only loses its outcome.
 */
export async function runBatch(
  core: EngineCore,
  members: ClaimedJob[],
  queue: ResolvedQueue,
  finish: FinishBuffer,
  host: AttemptHost,
  workerId: string,
): Promise<void> {
  const shared = { open: members.length };
  const attempts = members.map((claimed) => {
    const attempt = new Attempt(
      claimed.job,
      claimed.token,
      queue.timeoutSeconds,
      queue.globalConcurrency !== undefined,
    );
    attempt.batch = shared;
    host.register(attempt);
    return attempt;
  });
  const run = new BatchRun(attempts, workerId);
  const timer =
    queue.timeoutSeconds === undefined
      ? null
      : setTimeout(() => {
          for (const attempt of attempts) attempt.abort('timeout');
        }, queue.timeoutSeconds * 1000);
  try {
    if (core.events.listenerCount('job:started') > 0)
      for (const claimed of members) emitStarted(core, claimed);
    const result = await run.call(queue.handler as unknown as BatchHandler, members);
    const durationMs = performance.now() - attempts[0].startedAt;
    for (const attempt of attempts) host.settled(attempt, false);
    const outcomes = run.ended === null && result.ok ? outcomesById(result.value) : null;
    // Settled each: a listener of job:completed or job:failed that throws must not end the
    // batch while other outcomes are still being written.
    const written = await Promise.allSettled(
      members.map((claimed, i) => {
        const attempt = attempts[i];
        const recorded = { core, finish, claimed, queue, durationMs };
        if (attempt.abortedBy === 'lost' || run.ended === 'shutdown') {
          return reportLost(core, claimed, attempt.abortedBy === 'lost' ? 'lost' : 'shutdown');
        }
        if (run.ended === 'timeout') return fail(recorded, attempt.abortError);
        if (!result.ok) return fail(recorded, result.error);
        const outcome = outcomeOf(claimed.job.id, outcomes);
        if ('error' in outcome) return fail(recorded, outcome.error);
        let outputText: string;
        try {
          outputText = outcome.output == null ? 'null' : toJsonText(outcome.output, 'output');
        } catch (error) {
          return fail(recorded, error);
        }
        return writeCompletion(core, finish, claimed, queue, outputText, durationMs);
      }),
    );
    for (const settled of written)
      if (settled.status === 'rejected') reportUnwritten(core, queue, settled.reason);
  } catch (error) {
    reportUnwritten(core, queue, error);
  } finally {
    if (timer) clearTimeout(timer);
    for (const attempt of attempts) host.finished(attempt);
  }
}

/** An outcome of the batch could not be recorded: its job's lock lapses, and it runs again. */
function reportUnwritten(core: EngineCore, queue: ResolvedQueue, error: unknown): void {
  core.events.emit('error', { scope: 'worker', error });
  core.logger.error('could not record the outcome of a job of a batch', {
    queue: queue.name,
    error: String(error),
  });
}

/** One call of a batch handler, raced against the batch's end (a timeout, the worker's stop). */
class BatchRun {
  /** Why the batch ended before its handler returned; null while it has not. */
  ended: AbortReason | null = null;
  private readonly controller = new AbortController();
  private onEnd: ((reason: AbortReason) => void) | null = null;

  constructor(
    private readonly attempts: Attempt[],
    private readonly workerId: string,
  ) {
    for (const attempt of attempts) {
      // A job lost alone (cancelled, reclaimed) leaves the others running.
      attempt.onAbort = (reason) => {
        if (reason !== 'lost') this.end(reason, attempt.abortError);
      };
    }
  }

  call(handler: BatchHandler, members: ClaimedJob[]): Promise<Result> | Result {
    const ctx: BatchContext = {
      signal: this.controller.signal,
      workerId: this.workerId,
      isCancelled: (id) => this.attempts.some((a) => a.id === id && a.abortedBy === 'lost'),
    };
    let value: unknown;
    try {
      value = handler(
        members.map((claimed) => claimed.job),
        ctx,
      );
    } catch (error) {
      return { ok: false, error };
    }
    if (!isThenable(value)) return { ok: true, value };
    return new Promise<Result>((resolve) => {
      this.onEnd = () => resolve({ ok: false, error: null });
      value.then(
        (v) => resolve({ ok: true, value: v }),
        (error) => resolve({ ok: false, error }),
      );
    });
  }

  private end(reason: AbortReason, error: Error | null): void {
    if (this.ended !== null) return;
    this.ended = reason;
    for (const attempt of this.attempts) attempt.abort(reason);
    this.controller.abort(error);
    this.onEnd?.(reason);
  }
}

/** A batch handler's outcome of one job. */
type JobOutcome = { output: unknown } | { error: unknown };

/**
 * The handler's outcomes by job id (an id given twice maps to null); null when the value is no
 * array, or holds an entry that is no `{ id: string, … }`.
 */
function outcomesById(value: unknown): Map<string, JobOutcome | null> | null {
  if (!Array.isArray(value)) return null;
  const byId = new Map<string, JobOutcome | null>();
  for (const entry of value) {
    if (!isObject(entry) || typeof entry.id !== 'string') return null;
    const outcome = entry.error !== undefined ? { error: entry.error } : { output: entry.output };
    byId.set(entry.id, byId.has(entry.id) ? null : outcome);
  }
  return byId;
}

/** The outcome of job `id`, or the error it fails with when the handler gave none it could use. */
function outcomeOf(id: string, outcomes: Map<string, JobOutcome | null> | null): JobOutcome {
  if (outcomes === null) {
    return {
      error: new BatchOutcomeError(
        id,
        'returned no array of { id: string, output } or { id: string, error }',
      ),
    };
  }
  const outcome = outcomes.get(id);
  if (outcome === undefined) return { error: new BatchOutcomeError(id, 'gave no outcome') };
  if (outcome === null) return { error: new BatchOutcomeError(id, 'gave two outcomes') };
  return outcome;
}
