import { InvalidOptionError, QueueNotFoundError } from '../errors.js';
import type { AddJobInput } from '../intake/job-request.js';
import { isRecord } from '../model/guards.js';
import { readJsonBody } from './json-body.js';
import { ApiRefusal, RestatedRefusal } from './problem.js';
import type { ApiAnswer, ApiRequest, ApiRoute } from './route.js';
import { type ApiCaller, canEnqueue, hasVerb } from './scopes.js';

/** The most jobs one batch request adds (the body limit bounds it as well). */
export const MAX_BATCH_JOBS = 1000;

const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** `POST /jobs`: one job, `Idempotency-Key` as its `idempotencyKey`. `POST /jobs/batch`: many, all or nothing. */
export const enqueueRoutes: ApiRoute[] = [
  { method: 'POST', pattern: /^\/jobs$/, run: enqueueOne },
  { method: 'POST', pattern: /^\/jobs\/batch$/, run: enqueueMany },
];

async function enqueueOne(request: ApiRequest): Promise<ApiAnswer> {
  checkEnqueuer(request.caller);
  const body = await readJsonBody(request.req, request.limits.maxBodyBytes);
  const input = withIdempotencyKey(request, body);
  checkQueueScope(request.caller, input, '');
  const result = await restatingUnknownQueue(request.tm.addJob(input as AddJobInput));
  return { status: result.deduplicated ? 200 : 201, body: result };
}

async function enqueueMany(request: ApiRequest): Promise<ApiAnswer> {
  checkEnqueuer(request.caller);
  if (request.req.headers[IDEMPOTENCY_HEADER.toLowerCase()] !== undefined) {
    // One key for many jobs would say nothing of each: each job carries its own idempotencyKey.
    throw new InvalidOptionError(
      IDEMPOTENCY_HEADER,
      'no header on a batch: an idempotencyKey in each job',
      '(header)',
    );
  }
  const body = await readJsonBody(request.req, request.limits.maxBodyBytes);
  if (!isRecord(body) || Object.keys(body).some((key) => key !== 'jobs')) {
    throw new InvalidOptionError('body', 'an object { jobs: [...] }', body);
  }
  const { jobs } = body;
  if (!Array.isArray(jobs) || jobs.length === 0 || jobs.length > MAX_BATCH_JOBS) {
    throw new InvalidOptionError('jobs', `an array of 1 to ${MAX_BATCH_JOBS} jobs`, jobs);
  }
  for (const [i, job] of jobs.entries()) checkQueueScope(request.caller, job, `jobs[${i}]`);
  const results = await restatingUnknownQueue(request.tm.addJobs(jobs as AddJobInput[]));
  return { status: 201, body: { jobs: results } };
}

/** The body with the header's key as `idempotencyKey` (for the API's window); refused when both say one. */
function withIdempotencyKey(request: ApiRequest, body: unknown): unknown {
  const header = request.req.headers[IDEMPOTENCY_HEADER.toLowerCase()];
  if (header === undefined) return body;
  if (typeof header !== 'string' || header.length === 0 || header.length > 255) {
    throw new InvalidOptionError(IDEMPOTENCY_HEADER, 'a key of 1 to 255 characters', header);
  }
  if (!isRecord(body)) return body;
  if (body.idempotencyKey !== undefined) {
    throw new InvalidOptionError(
      IDEMPOTENCY_HEADER,
      'either the header or idempotencyKey in the body, not both',
      header,
    );
  }
  return { ...body, idempotencyKey: { key: header, ttlSeconds: request.limits.idempotencyTtlSeconds } };
}

/**
 * 403 unless the token may add to the job's queue. A job whose queue is no string is left to
 * the engine's check, which refuses it naming the field: nothing is written either way.
 */
function checkQueueScope(caller: ApiCaller, job: unknown, field: string): void {
  const queue = isRecord(job) ? job.queue : undefined;
  if (typeof queue !== 'string' || canEnqueue(caller, queue)) return;
  throw new ApiRefusal(
    403,
    'FORBIDDEN',
    `The token '${caller.name}' may not add jobs to the queue ${JSON.stringify(queue)}${field ? ` (${field}.queue)` : ''}: it needs the scope 'enqueue:${queue}', 'enqueue:*' or 'admin'. Nothing was added.`,
  );
}

/** 403 before the body is read for a token that may add to no queue at all. */
function checkEnqueuer(caller: ApiCaller): void {
  if (hasVerb(caller, 'enqueue')) return;
  throw new ApiRefusal(
    403,
    'FORBIDDEN',
    `The token '${caller.name}' may add jobs to no queue: it needs an 'enqueue:<queue>' scope, 'enqueue:*' or 'admin'.`,
  );
}

/** A queue the body names that does not exist: 422 with QUEUE_NOT_FOUND (nothing was added). */
async function restatingUnknownQueue<T>(adding: Promise<T>): Promise<T> {
  try {
    return await adding;
  } catch (error) {
    throw error instanceof QueueNotFoundError ? new RestatedRefusal(422, error) : error;
  }
}
