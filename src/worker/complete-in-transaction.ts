/** Completion inside the transaction a handler's completion hook writes in. */
import type { EngineCore } from '../engine-core.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import type { ClaimedJob, Queryable } from '../storage/storage.js';
import { isConnectionError } from '../storage/storage.js';
import type { RetryWindow } from './retry-window.js';

/** What a completion writes: the output's JSON text, and the run's history events (null for none). */
export interface CompletionText {
  output: string;
  history: string | null;
}

/**
 * Complete inside the completion hook's transaction, again while the database cannot be
 * reached: a lost connection rolled back the completion and the hook's writes together, and
 * the handler's result should not be thrown away for it. Other errors (the hook's own) fail
 * the attempt.
 */
export async function completeWithRetries(
  core: EngineCore,
  claimed: ClaimedJob,
  queue: ResolvedQueue,
  written: CompletionText,
  hook: (tx: Queryable) => Promise<void> | void,
  window: RetryWindow,
): Promise<boolean> {
  for (let failures = 1; ; failures++) {
    try {
      return await completeInTransaction(core, claimed, queue, written, hook);
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
  { output, history }: CompletionText,
  hook: (tx: Queryable) => Promise<void> | void,
): Promise<boolean> {
  return core.storage.transaction(async (tx) => {
    const ok = await core.storage.attempts.completeOne(
      tx,
      job.id,
      token,
      output,
      queue.deleteCheckpointsOnComplete,
      history,
    );
    if (ok) await hook(tx);
    return ok;
  });
}
