import { InvalidOptionError, JobNotFoundError } from '../errors.js';
import type { ListJobsFilter } from '../jobs/list-jobs.js';
import { ApiRefusal } from './problem.js';
import { waitedResult } from './result-wait.js';
import { type ApiAnswer, type ApiRequest, type ApiRoute, segment } from './route.js';
import { type ApiCaller, canRead } from './scopes.js';

/** `GET /jobs/{id}`, `GET /jobs/{id}/result?wait=N` and `GET /jobs?…`: the `read` scope's. */
export const readRoutes: ApiRoute[] = [
  { method: 'GET', pattern: /^\/jobs$/, run: list },
  { method: 'GET', pattern: /^\/jobs\/([^/]+)$/, run: getOne },
  { method: 'GET', pattern: /^\/jobs\/([^/]+)\/result$/, run: result },
];

async function getOne(request: ApiRequest, match: RegExpMatchArray): Promise<ApiAnswer> {
  checkReader(request.caller);
  const id = segment(match[1]);
  const job = await request.tm.getJob(id);
  if (job === null) throw new JobNotFoundError(id);
  return { status: 200, body: job };
}

async function result(request: ApiRequest, match: RegExpMatchArray): Promise<ApiAnswer> {
  checkReader(request.caller);
  return waitedResult(request, segment(match[1]));
}

/** Query parameters that carry numbers; the rest are text, and `tags` and `ids` may repeat. */
const NUMBERS = new Set(['since', 'limit']);
const NUMBER = /^-?\d+(?:\.\d+)?$/;

async function list(request: ApiRequest): Promise<ApiAnswer> {
  checkReader(request.caller);
  const filter: Record<string, unknown> = {};
  for (const name of new Set(request.query.keys())) {
    const values = request.query.getAll(name);
    if (name === 'tags' || name === 'ids') filter[name] = values;
    else if (NUMBERS.has(name) && NUMBER.test(one(name, values))) filter[name] = Number(values[0]);
    else filter[name] = one(name, values);
  }
  // The engine checks the filter: an unknown parameter or a bad value is refused naming it.
  const page = await request.tm.listJobs(filter as ListJobsFilter);
  return { status: 200, body: page };
}

function one(name: string, values: string[]): string {
  if (values.length > 1) throw new InvalidOptionError(name, 'one value', values);
  return values[0];
}

function checkReader(caller: ApiCaller): void {
  if (canRead(caller)) return;
  throw new ApiRefusal(
    403,
    'FORBIDDEN',
    `The token '${caller.name}' may not read jobs: it needs the scope 'read' or 'admin'.`,
  );
}
