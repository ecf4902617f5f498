import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from '../../jobs/list-jobs.js';
import { MAX_WAIT_SECONDS } from '../result-wait.js';
import { componentSchemas } from './schemas.js';

type Schema = Record<string, unknown>;

const json = (schema: Schema) => ({ 'application/json': { schema } });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A refusal: problem details, with what it means for this route. */
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: ref('Problem') } },
});

/** What every route with a token may answer besides its own. */
const AUTH_PROBLEMS = {
  '401': problem('no token, or a wrong one'),
  '403': problem('the token lacks the scope this call needs'),
  '429': problem('too many wrong tokens from this address: see Retry-After'),
};

/** Refusals of a route that reads a body. */
const BODY_PROBLEMS = {
  '400': problem('malformed JSON, or an invalid option (`code` INVALID_OPTION, `details.field` names it)'),
  '413': problem('the body is over the limit'),
  '415': problem('the body is not JSON'),
};

const jobId = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string' },
  description: 'the job id',
};
const query = (name: string, schema: Schema, description: string) => ({
  name,
  in: 'query',
  schema,
  description,
});

/** Operations on one job, by id: what each takes, answers and needs. */
function jobPaths(): Schema {
  return {
    '/jobs/{id}': {
      get: {
        operationId: 'getJob',
        summary: 'A job (scope read)',
        parameters: [jobId],
        responses: {
          '200': { description: 'the job', content: json(ref('Job')) },
          '400': problem('not a job id'),
          '404': problem('no such job (JOB_NOT_FOUND)'),
          ...AUTH_PROBLEMS,
        },
      },
    },
    '/jobs/{id}/result': {
      get: {
        operationId: 'getJobResult',
        summary: "A job's output, waiting up to `wait` seconds for it to finish (scope read)",
        parameters: [
          jobId,
          query(
            'wait',
            { type: 'number', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0 },
            'seconds to wait for the job to finish; the wait ends early when the client disconnects',
          ),
        ],
        responses: {
          '200': { description: 'the job completed: its output', content: json(ref('JobResult')) },
          '202': { description: 'not finished yet: ask again', content: json(ref('JobPending')) },
          '400': problem('not a job id, or a bad wait'),
          '404': problem('no such job (JOB_NOT_FOUND)'),
          '409': problem(
            'the job finished without completing (JOB_FAILED; `details.status`, `details.error`)',
          ),
          ...AUTH_PROBLEMS,
        },
      },
    },
    '/jobs/{id}/signals/{name}': {
      post: {
        operationId: 'signalJob',
        summary: "Send a signal to a job's wait (scope signal:<queue>, signal:* or admin; audited)",
        parameters: [
          jobId,
          { name: 'name', in: 'path', required: true, schema: { type: 'string' }, description: 'the signal' },
        ],
        requestBody: { required: false, content: json(ref('SignalRequest')) },
        responses: {
          '200': {
            description: 'stored, or refused with a reason (nothing stored)',
            content: json(ref('SignalDelivery')),
          },
          ...BODY_PROBLEMS,
          '404': problem('no such job (JOB_NOT_FOUND)'),
          '409': problem('the signal cannot be used (UNKNOWN_SIGNAL, ...)'),
          ...AUTH_PROBLEMS,
        },
      },
    },
    '/jobs/{id}/cancel': { post: operatorAction('cancelJob', 'Cancel a job (scope admin; audited)') },
    '/jobs/{id}/retry': {
      post: operatorAction('retryJob', 'Retry a finished job now (scope admin; audited)'),
    },
  };
}

function operatorAction(operationId: string, summary: string): Schema {
  return {
    operationId,
    summary,
    parameters: [jobId],
    responses: {
      '200': { description: 'the job after the change', content: json(ref('Job')) },
      '400': problem('not a job id'),
      '404': problem('no such job (JOB_NOT_FOUND)'),
      '409': problem('not in a state that allows it (INVALID_JOB_STATE, ...)'),
      ...AUTH_PROBLEMS,
    },
  };
}

/** Adding and listing jobs. */
function jobsPaths(): Schema {
  return {
    '/jobs': {
      post: {
        operationId: 'enqueueJob',
        summary: 'Add a job (scope enqueue:<queue>, enqueue:* or admin)',
        parameters: [
          {
            name: 'Idempotency-Key',
            in: 'header',
            schema: { type: 'string', minLength: 1, maxLength: 255 },
            description:
              "the job's idempotencyKey: a second add with the key on the queue within the window returns the first job (200, deduplicated)",
          },
        ],
        requestBody: { required: true, content: json(ref('EnqueueRequest')) },
        responses: {
          '201': { description: 'added', content: json(ref('EnqueueResult')) },
          '200': {
            description: 'an earlier job took this add (deduplicated)',
            content: json(ref('EnqueueResult')),
          },
          ...BODY_PROBLEMS,
          '409': problem('refused in the state things are in (UNIQUE_KEY_CONFLICT, ...)'),
          '422': problem('the queue named does not exist (QUEUE_NOT_FOUND): nothing was added'),
          ...AUTH_PROBLEMS,
        },
      },
      get: {
        operationId: 'listJobs',
        summary: 'A page of jobs, newest first (scope read)',
        parameters: [
          query('queue', { type: 'string' }, 'only jobs of this queue'),
          query('status', ref('JobStatus'), 'only jobs in this status'),
          {
            ...query(
              'tags',
              { type: 'array', items: { type: 'string' } },
              'only jobs carrying every one of these tags (repeat the parameter)',
            ),
            style: 'form',
            explode: true,
          },
          {
            ...query(
              'ids',
              { type: 'array', items: { type: 'string' } },
              'only these jobs (repeat the parameter)',
            ),
            style: 'form',
            explode: true,
          },
          query('key', { type: 'string' }, 'only jobs of this concurrency key'),
          query('version', { type: 'string' }, 'only jobs added under this queue version'),
          query('q', { type: 'string' }, "text searched in the job's data and error"),
          query('since', { type: 'number', exclusiveMinimum: 0 }, 'created within the last N seconds'),
          query('createdAfter', { type: 'string', format: 'date-time' }, 'created at or after'),
          query('createdBefore', { type: 'string', format: 'date-time' }, 'created before'),
          query('from', { type: 'string', format: 'date-time' }, 'the same as createdAfter'),
          query('to', { type: 'string', format: 'date-time' }, 'the same as createdBefore'),
          query(
            'limit',
            { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT },
            'jobs per page',
          ),
          query('order', { enum: ['desc', 'asc'], default: 'desc' }, 'by id'),
          query('after', { type: 'string' }, "the page after this one: the previous page's cursor"),
        ],
        responses: {
          '200': { description: 'a page', content: json(ref('JobPage')) },
          '400': problem('an unknown parameter or a bad value (INVALID_OPTION)'),
          ...AUTH_PROBLEMS,
        },
      },
    },
    '/jobs/batch': {
      post: {
        operationId: 'enqueueJobs',
        summary:
          'Add many jobs, all or nothing (every queue in scope); no Idempotency-Key header: each job may carry its idempotencyKey',
        requestBody: { required: true, content: json(ref('BatchEnqueueRequest')) },
        responses: {
          '201': {
            description: 'added (each result says whether it was deduplicated)',
            content: json(ref('BatchEnqueueResult')),
          },
          ...BODY_PROBLEMS,
          '409': problem('refused in the state things are in'),
          '422': problem('a queue named does not exist (QUEUE_NOT_FOUND): nothing was added'),
          ...AUTH_PROBLEMS,
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the API, served at `/api/v1/openapi.json` and kept as docs/openapi.json. */
export function openApiDocument(): Schema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tidemark HTTP API',
      // The API's own version (the `v1` of its paths), not the package's: the document changes with the API.
      version: '1.0.0',
      description: 'Add, read, wait for, signal, cancel and retry jobs. See docs/http-api.md.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    paths: {
      ...jobsPaths(),
      ...jobPaths(),
      '/openapi.json': {
        get: {
          operationId: 'openApiDocument',
          summary: 'This document (no token needed)',
          security: [],
          responses: { '200': { description: 'the document', content: json({ type: 'object' }) } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'a token of the `api.tokens` option' },
      },
      schemas: componentSchemas(),
    },
  };
}
