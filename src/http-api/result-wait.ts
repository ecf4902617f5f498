import { InvalidOptionError, JobFailedError, JobNotFoundError } from '../errors.js';
import { isFinished } from '../job-status.js';
import type { Job } from '../model/job.js';
import type { ApiAnswer, ApiRequest } from './route.js';

/** The longest `wait` a request may ask for: long enough for a long poll, short of common proxy timeouts. */
export const MAX_WAIT_SECONDS = 60;

/**
 * `GET /jobs/{id}/result?wait=N`: the job's output once it completed (200), JobFailedError's
 * problem once it finished otherwise (409, as `tm.result` throws), or its status while it has
 * not finished after up to N seconds (202: ask again). The wait follows the job as
 * `tm.subscribe` does, and ends early when the client disconnects.
 */
export async function waitedResult(request: ApiRequest, id: string): Promise<ApiAnswer> {
  const wait = waitOf(request.query);
  let job = await request.tm.getJob(id);
  if (job === null) throw new JobNotFoundError(id);
  if (!isFinished(job.status) && wait > 0) {
    await untilFinished(request, id, wait);
    job = await request.tm.getJob(id);
    if (job === null) throw new JobNotFoundError(id);
  }
  return answerOf(job);
}

function answerOf(job: Job): ApiAnswer {
  if (job.status === 'completed')
    return { status: 200, body: { id: job.id, status: job.status, output: job.output } };
  if (isFinished(job.status)) throw new JobFailedError(job.id, job.status, job.error);
  return { status: 202, body: { id: job.id, status: job.status } };
}

function waitOf(query: URLSearchParams): number {
  const given = query.getAll('wait');
  if (given.length === 0) return 0;
  const wait = given.length === 1 && /^\d+(?:\.\d+)?$/.test(given[0]) ? Number(given[0]) : Number.NaN;
  if (!(wait >= 0 && wait <= MAX_WAIT_SECONDS)) {
    throw new InvalidOptionError(
      'wait',
      `a number of seconds from 0 to ${MAX_WAIT_SECONDS}`,
      given.join(','),
    );
  }
  return wait;
}

/** Follow the job until it finishes, `seconds` pass or the client leaves, whichever is first. */
async function untilFinished(request: ApiRequest, id: string, seconds: number): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), seconds * 1000);
  const leave = () => stop.abort();
  request.clientGone.addEventListener('abort', leave, { once: true });
  try {
    for await (const update of request.tm.subscribe(id, { signal: stop.signal })) {
      if (isFinished(update.status)) return;
    }
  } catch (error) {
    // A job deleted while waited for is read again by the caller, which answers 404.
    if (!(error instanceof JobNotFoundError)) throw error;
  } finally {
    clearTimeout(timer);
    request.clientGone.removeEventListener('abort', leave);
  }
}
