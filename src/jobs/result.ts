import type { EngineCore } from '../engine-core.js';
import { JobFailedError, JobNotFoundError, ResultTimeoutError } from '../errors.js';
import { isFinished } from '../job-status.js';
import { checkId } from '../options/check.js';
import { seconds } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';

/** A checked `tm.result(id, options)` call. */
export interface ResultRequest {
  jobId: string;
  /** Seconds to wait; undefined waits for ever. */
  timeout: number | undefined;
}

/** `tm.result(id, options)`'s options, declared once. */
export const resultOptions = new OptionSet('options', {
  timeoutSeconds: seconds({}, { description: 'how long to wait', docDefault: 'none: it waits for ever' }),
});

/** Options of `tm.result`. */
export type ResultOptions = OptionsOf<typeof resultOptions.properties>;

/** Check `tm.result`'s arguments before anything is read. */
export function checkResultRequest(id: string, options: ResultOptions): ResultRequest {
  const jobId = checkId(id);
  return { jobId, timeout: resultOptions.read(options).timeoutSeconds };
}

/**
 * Poll the job until it is finished, backing off from 20 ms to 1 s, and wake early when a
 * worker in this process finishes it. Resolves to its output, or throws JobFailedError,
 * JobNotFoundError or ResultTimeoutError.
 */
export async function waitForResult<Output>(
  core: EngineCore,
  { jobId, timeout }: ResultRequest,
): Promise<Output> {
  const deadline = timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeout * 1000;
  let delay = 20;
  for (;;) {
    const job = await core.storage.jobs.getJob(jobId);
    if (!job) throw new JobNotFoundError(jobId);
    if (job.status === 'completed') return job.output as Output;
    if (isFinished(job.status)) throw new JobFailedError(jobId, job.status, job.error);
    if (Date.now() >= deadline) throw new ResultTimeoutError(jobId, job.status, timeout ?? 0);
    await finishedOrElapsed(core, jobId, Math.min(delay, Math.max(deadline - Date.now(), 0)));
    delay = Math.min(delay * 2, 1_000);
  }
}

/** Resolves after `ms`, or earlier when a worker in this process finishes the job. */
function finishedOrElapsed(core: EngineCore, jobId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const offs: (() => void)[] = [];
    const done = () => {
      clearTimeout(timer);
      for (const off of offs) off();
      resolve();
    };
    const timer = setTimeout(done, ms);
    offs.push(core.events.on('job:completed', (e) => e.id === jobId && done()));
    offs.push(core.events.on('job:failed', (e) => e.id === jobId && !e.willRetry && done()));
  });
}
