import { createHash } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';
import { MAX_ATTEMPTS, PRIORITY } from '../model/job-rules.js';
import {
  checkDate,
  checkInteger,
  checkKnownKeys,
  checkObject,
  checkSeconds,
  checkString,
  isStorableText,
} from '../options/check.js';
import { toJsonText } from '../options/json.js';
import { readOptions } from '../options/read-options.js';
import { freezeRetention, type RetentionPolicy } from '../retention/policy.js';
import type { InsertRow } from '../storage/storage.js';

/** What `tm.addJob` takes. */
export interface AddJobInput<Data = unknown> {
  queue: string;
  data?: Data;
  /** Replaces the queue's (and engine's) retention policy for this job. */
  retention?: RetentionPolicy | false;
  /** Run no earlier than this moment. */
  runAt?: Date | string;
  /** Run no earlier than this many seconds from now. */
  delaySeconds?: number;
  /** Higher runs first. Default 0. */
  priority?: number;
  maxAttempts?: number;
  /** Not started within this many seconds of its run time: the job becomes `expired`. */
  expireInSeconds?: number;
  /** Deduplicate adds with this key for `ttlSeconds`; a duplicate returns the original id. */
  idempotencyKey?: { key: string; ttlSeconds: number };
  /** Deduplicate adds to the same queue with the same data for this many seconds. */
  uniqueFor?: number;
  /** One in-flight job per key: `true` keys on the data, a string is the key. */
  unique?: boolean | string;
}

/** What `addJob` resolves to. */
export interface AddJobResult {
  id: string;
  /** True when an earlier job held the deduplication key and its id was returned instead. */
  deduplicated: boolean;
}

/**
 * A job request after its checks: the row it writes, as far as the job itself decides it
 * (`max_attempts` and `retention` only when it sets them: its queue gives the rest), and the
 * time-windowed lock it takes, if any.
 */
export interface JobRequest {
  row: InsertRow;
  /** unique_locks scope and window, for idempotencyKey / uniqueFor. */
  lock?: { scope: string; ttlSeconds: number };
  /** The retention policy as given, when the job sets one (for the note on what it keeps). */
  policy?: RetentionPolicy | false;
}

/** Where a request's options sit, for the errors that name them. */
export interface RequestFields {
  /** The options' own field prefix: `''` (top level), `jobs[3]`, `options`. */
  options: string;
  /** The queue's and the data's field names. */
  queue: string;
  data: string;
}

const TOP_LEVEL: RequestFields = { options: '', queue: 'queue', data: 'data' };

const JOB_OPTIONS = [
  'queue',
  'data',
  'retention',
  'runAt',
  'delaySeconds',
  'priority',
  'maxAttempts',
  'expireInSeconds',
  'idempotencyKey',
  'uniqueFor',
  'unique',
] as const;

/** The options `ctx.runChild(queue, data, options)` takes: a child's place is its parent's step. */
export const CHILD_OPTIONS = ['priority', 'maxAttempts', 'delaySeconds', 'retention'] as const;

/** Check one `addJob` input (its errors name `field`, e.g. `jobs[3]`); nothing is written. */
export function resolveAddJob(input: unknown, field = ''): JobRequest {
  const options = checkObject(readOptions(input, field || 'job', ['data']), field || 'job');
  checkKnownKeys(options, field, JOB_OPTIONS);
  const at = (name: string) => (field ? `${field}.${name}` : name);
  return resolveJobRequest(options, { options: field, queue: at('queue'), data: at('data') });
}

/** Check a workflow child's queue, data and options; nothing is written. */
export function resolveChild(queue: string, data: unknown, input: unknown): JobRequest {
  const options = checkObject(readOptions(input, 'options'), 'options');
  checkKnownKeys(options, 'options', CHILD_OPTIONS);
  return resolveJobRequest({ ...options, queue, data }, { options: 'options', queue: 'queue', data: 'data' });
}

/** A schedule fire's job: its queue and data, as the schedule stores them. */
export function resolveFire(queue: string, data: unknown): JobRequest {
  return resolveJobRequest({ queue, data }, TOP_LEVEL);
}

/**
 * The one resolution of a job request, whichever way it came in: every option checked
 * (each error names its field) and turned into the row the insert writes.
 */
function resolveJobRequest(options: Record<string, unknown>, fields: RequestFields): JobRequest {
  const at = (name: string) => (fields.options ? `${fields.options}.${name}` : name);
  const queue = checkString(options.queue, fields.queue);
  const dataText = toJsonText(options.data, fields.data);
  if (options.runAt !== undefined && options.delaySeconds !== undefined) {
    throw new InvalidOptionError(
      at('delaySeconds'),
      'either runAt or delaySeconds, not both',
      options.delaySeconds,
    );
  }
  if (options.idempotencyKey !== undefined && options.uniqueFor !== undefined) {
    throw new InvalidOptionError(
      at('uniqueFor'),
      'either idempotencyKey or uniqueFor, not both',
      options.uniqueFor,
    );
  }
  const row: InsertRow = {
    queue,
    dataText,
    priority:
      options.priority === undefined
        ? PRIORITY.default
        : checkInteger(options.priority, at('priority'), PRIORITY.min, PRIORITY.max),
  };
  const request: JobRequest = { row };
  if (options.retention !== undefined) {
    row.retention = freezeRetention(options.retention, at('retention'));
    request.policy = options.retention as RetentionPolicy | false;
  }
  if (options.runAt !== undefined) row.run_at = checkDate(options.runAt, at('runAt')).toISOString();
  if (options.delaySeconds !== undefined) {
    row.delay_seconds = checkSeconds(options.delaySeconds, at('delaySeconds'), { max: 3_153_600_000 });
  }
  if (options.maxAttempts !== undefined)
    row.max_attempts = checkInteger(
      options.maxAttempts,
      at('maxAttempts'),
      MAX_ATTEMPTS.min,
      MAX_ATTEMPTS.max,
    );
  if (options.expireInSeconds !== undefined) {
    row.expire_in_seconds = checkSeconds(options.expireInSeconds, at('expireInSeconds'), {
      exclusiveMin: true,
    });
  }
  if (options.unique !== undefined) {
    if (options.unique === true) row.unique_key = `data:${sha256(canonicalJson(dataText))}`;
    else if (
      typeof options.unique === 'string' &&
      options.unique.length > 0 &&
      options.unique.length <= 255 &&
      isStorableText(options.unique)
    ) {
      row.unique_key = `key:${options.unique}`;
    } else if (options.unique !== false) {
      throw new InvalidOptionError(at('unique'), 'true, false or a key of 1-255 characters', options.unique);
    }
  }
  if (row.unique_key && (options.idempotencyKey !== undefined || options.uniqueFor !== undefined)) {
    throw new InvalidOptionError(at('unique'), 'unique without idempotencyKey or uniqueFor', options.unique);
  }
  if (options.idempotencyKey !== undefined) {
    const idem = checkObject(options.idempotencyKey, at('idempotencyKey'));
    checkKnownKeys(idem, at('idempotencyKey'), ['key', 'ttlSeconds']);
    const key = checkString(idem.key, at('idempotencyKey.key'), { max: 255 });
    const ttlSeconds = checkSeconds(idem.ttlSeconds, at('idempotencyKey.ttlSeconds'), { exclusiveMin: true });
    request.lock = { scope: `idem:${queue}:${key}`, ttlSeconds };
  }
  if (options.uniqueFor !== undefined) {
    const ttlSeconds = checkSeconds(options.uniqueFor, at('uniqueFor'), { exclusiveMin: true });
    request.lock = { scope: `data:${queue}:${sha256(canonicalJson(dataText))}`, ttlSeconds };
  }
  return request;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The same data written with keys in another order deduplicates as the same data. */
function canonicalJson(text: string): string {
  const sort = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sort);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, sort((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return JSON.stringify(sort(JSON.parse(text)));
}
