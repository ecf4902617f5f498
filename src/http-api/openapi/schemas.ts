import { ERROR_CODES } from '../../errors.js';
import { jobOptions } from '../../intake/job-options.js';
import { ALL_STATUSES, FINISHED_STATUSES } from '../../job-status.js';
import { toJsonSchema } from '../../options/json-schema.js';
import { MAX_BATCH_JOBS } from '../enqueue-routes.js';
import { API_ERROR_CODES } from '../problem.js';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const moment: Schema = { type: 'string', format: 'date-time' };
const id: Schema = { type: 'string', pattern: '^[0-9]{1,19}$', description: 'a job id: digits, as a string' };

/** A job's options as `tm.addJob` reads them: the one declaration, as JSON Schema. */
function enqueueRequest(): Schema {
  const { $schema: _, title: __, ...schema } = toJsonSchema(jobOptions);
  return { ...schema, description: 'A job: its queue, data and options, as `tm.addJob` takes them.' };
}

/** The schemas of the API's bodies; `Job` lists every field, so a field added to the model must be added here. */
export function componentSchemas(): Record<string, Schema> {
  return {
    Problem: {
      type: 'object',
      description: "Problem details (RFC 9457); `code` is Tidemark's error code.",
      required: ['type', 'title', 'status', 'detail', 'code'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', description: 'urn:tidemark:problem:<code>' },
        title: { type: 'string' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string' },
        code: { enum: [...ERROR_CODES, ...API_ERROR_CODES] },
        details: {
          type: 'object',
          description: "the engine error's structured details (the field at fault...)",
        },
      },
    },
    EnqueueRequest: enqueueRequest(),
    EnqueueResult: {
      type: 'object',
      required: ['id', 'deduplicated'],
      additionalProperties: false,
      properties: {
        id,
        deduplicated: {
          type: 'boolean',
          description: 'true when an earlier job took this add: its id is returned',
        },
        debounced: { type: 'boolean' },
        throttled: { type: 'boolean' },
      },
    },
    BatchEnqueueRequest: {
      type: 'object',
      required: ['jobs'],
      additionalProperties: false,
      properties: {
        jobs: { type: 'array', minItems: 1, maxItems: MAX_BATCH_JOBS, items: ref('EnqueueRequest') },
      },
    },
    BatchEnqueueResult: {
      type: 'object',
      required: ['jobs'],
      additionalProperties: false,
      properties: { jobs: { type: 'array', items: ref('EnqueueResult') } },
    },
    JobStatus: { enum: [...ALL_STATUSES] },
    Job: {
      type: 'object',
      additionalProperties: false,
      required: JOB_FIELDS,
      properties: {
        id,
        queue: { type: 'string' },
        status: ref('JobStatus'),
        data: {},
        output: {},
        error: nullable({
          type: 'object',
          required: ['message'],
          properties: { name: { type: 'string' }, message: { type: 'string' } },
        }),
        attempts: { type: 'integer', minimum: 0 },
        maxAttempts: { type: 'integer', minimum: 1 },
        priority: { type: 'integer' },
        runAt: moment,
        expireAt: nullable(moment),
        createdAt: moment,
        startedAt: nullable(moment),
        finishedAt: nullable(moment),
        parentId: nullable(id),
        rootId: nullable(id),
        lockedBy: nullable({ type: 'string' }),
        lockedUntil: nullable(moment),
        retention: { type: 'object', additionalProperties: { type: 'number' } },
        key: nullable({ type: 'string' }),
        tier: nullable({ type: 'string' }),
        tags: { type: 'array', items: { type: 'string' } },
        progress: { anyOf: [{ type: 'number' }, { type: 'object' }, { type: 'null' }] },
        metadata: { type: 'object' },
        trace: nullable({ type: 'object' }),
        purgeAfter: nullable(moment),
        version: nullable({ type: 'string' }),
      },
    },
    JobPage: {
      type: 'object',
      required: ['jobs', 'cursor'],
      additionalProperties: false,
      properties: {
        jobs: { type: 'array', items: ref('Job') },
        cursor: nullable({
          type: 'string',
          description: 'pass as `after`, with the same filter, for the next page',
        }),
      },
    },
    JobResult: {
      type: 'object',
      required: ['id', 'status', 'output'],
      additionalProperties: false,
      properties: { id, status: { const: 'completed' }, output: {} },
    },
    JobPending: {
      type: 'object',
      required: ['id', 'status'],
      additionalProperties: false,
      properties: {
        id,
        status: { enum: ALL_STATUSES.filter((s) => !FINISHED_STATUSES.includes(s as never)) },
      },
    },
    SignalRequest: {
      type: 'object',
      additionalProperties: false,
      properties: { payload: { description: "the signal's payload: any JSON" } },
    },
    SignalDelivery: {
      oneOf: [
        {
          type: 'object',
          required: ['delivered'],
          additionalProperties: false,
          properties: { delivered: { const: true } },
        },
        {
          type: 'object',
          required: ['delivered', 'reason'],
          additionalProperties: false,
          properties: { delivered: { const: false }, reason: { type: 'string' } },
        },
      ],
    },
  };
}

const JOB_FIELDS = [
  'id',
  'queue',
  'status',
  'data',
  'output',
  'error',
  'attempts',
  'maxAttempts',
  'priority',
  'runAt',
  'expireAt',
  'createdAt',
  'startedAt',
  'finishedAt',
  'parentId',
  'rootId',
  'lockedBy',
  'lockedUntil',
  'retention',
  'key',
  'tier',
  'tags',
  'progress',
  'metadata',
  'trace',
  'purgeAfter',
  'version',
];
