import { InvalidOptionError, JobNotFoundError } from '../errors.js';
import type { AuditOptions } from '../model/audit.js';
import { isRecord } from '../model/guards.js';
import { readJsonBody } from './json-body.js';
import { ApiRefusal } from './problem.js';
import { type ApiAnswer, type ApiRequest, type ApiRoute, segment } from './route.js';
import { type ApiCaller, canSignal, hasVerb, isAdmin } from './scopes.js';

/**
 * `POST /jobs/{id}/signals/{name}` (a `signal:<queue>` scope), `POST /jobs/{id}/cancel` and
 * `POST /jobs/{id}/retry` (`admin`). Each is audited under the token's name, source `api`.
 */
export const actionRoutes: ApiRoute[] = [
  { method: 'POST', pattern: /^\/jobs\/([^/]+)\/signals\/([^/]+)$/, run: signal },
  {
    method: 'POST',
    pattern: /^\/jobs\/([^/]+)\/cancel$/,
    run: (request, match) => operate(request, match, 'cancel'),
  },
  {
    method: 'POST',
    pattern: /^\/jobs\/([^/]+)\/retry$/,
    run: (request, match) => operate(request, match, 'retry'),
  },
];

function auditedAs(caller: ApiCaller): AuditOptions {
  return { actor: caller.name, source: 'api' };
}

async function signal(request: ApiRequest, match: RegExpMatchArray): Promise<ApiAnswer> {
  const { caller, tm } = request;
  if (!hasVerb(caller, 'signal')) throw signalRefusal(caller, null);
  const body = await readJsonBody(request.req, request.limits.maxBodyBytes);
  if (body !== undefined && (!isRecord(body) || Object.keys(body).some((key) => key !== 'payload'))) {
    throw new InvalidOptionError('body', 'an object { payload } or no body', body);
  }
  const id = segment(match[1]);
  // The scope names a queue: the job's is read first (a bad id is refused here, naming it).
  const job = await tm.getJob(id);
  if (job === null) throw new JobNotFoundError(id);
  if (!canSignal(caller, job.queue)) throw signalRefusal(caller, job.queue);
  const delivery = await tm.signal(id, segment(match[2]), body?.payload, auditedAs(caller));
  return { status: 200, body: delivery };
}

function signalRefusal(caller: ApiCaller, queue: string | null): ApiRefusal {
  const needs = queue === null ? "a 'signal:<queue>' scope" : `the scope 'signal:${queue}'`;
  return new ApiRefusal(
    403,
    'FORBIDDEN',
    `The token '${caller.name}' may not signal ${queue === null ? 'jobs' : `the jobs of ${JSON.stringify(queue)}`}: it needs ${needs}, 'signal:*' or 'admin'.`,
  );
}

async function operate(
  request: ApiRequest,
  match: RegExpMatchArray,
  action: 'cancel' | 'retry',
): Promise<ApiAnswer> {
  const { caller, tm } = request;
  if (!isAdmin(caller)) {
    throw new ApiRefusal(
      403,
      'FORBIDDEN',
      `The token '${caller.name}' may not ${action} jobs: it needs the scope 'admin'.`,
    );
  }
  const id = segment(match[1]);
  const job =
    action === 'cancel'
      ? await tm.cancelJob(id, auditedAs(caller))
      : await tm.retryJob(id, auditedAs(caller));
  return { status: 200, body: job };
}
