import { createHash } from 'node:crypto';
import { InvalidOptionError } from '../errors.js';
import type { FrozenRetention } from '../model/job.js';
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

/** An add after validation: everything the insert needs, nothing left to check. */
export interface ResolvedAdd {
  queue: string;
  dataText: string;
  jobRetention?: FrozenRetention;
  runAt?: Date;
  delaySeconds?: number;
  priority: number;
  maxAttempts?: number;
  expireInSeconds?: number;
  uniqueKey?: string;
  /** unique_locks scope and window, for idempotencyKey / uniqueFor. */
  lock?: { scope: string; ttlSeconds: number };
}

const KNOWN = [
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

export function resolveAddJob(input: unknown, field = ''): ResolvedAdd {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  const options = checkObject(readOptions(input, field || 'job', ['data']), field || 'job');
  checkKnownKeys(options, field, KNOWN);
  const queue = checkString(options.queue, at('queue'));
  const dataText = toJsonText(options.data, at('data'));
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
  const resolved: ResolvedAdd = {
    queue,
    dataText,
    priority:
      options.priority === undefined
        ? PRIORITY.default
        : checkInteger(options.priority, at('priority'), PRIORITY.min, PRIORITY.max),
  };
  if (options.retention !== undefined)
    resolved.jobRetention = freezeRetention(options.retention, at('retention'));
  if (options.runAt !== undefined) resolved.runAt = checkDate(options.runAt, at('runAt'));
  if (options.delaySeconds !== undefined) {
    resolved.delaySeconds = checkSeconds(options.delaySeconds, at('delaySeconds'), { max: 3_153_600_000 });
  }
  if (options.maxAttempts !== undefined)
    resolved.maxAttempts = checkInteger(
      options.maxAttempts,
      at('maxAttempts'),
      MAX_ATTEMPTS.min,
      MAX_ATTEMPTS.max,
    );
  if (options.expireInSeconds !== undefined) {
    resolved.expireInSeconds = checkSeconds(options.expireInSeconds, at('expireInSeconds'), {
      exclusiveMin: true,
    });
  }
  if (options.unique !== undefined) {
    if (options.unique === true) resolved.uniqueKey = `data:${sha256(canonicalJson(dataText))}`;
    else if (
      typeof options.unique === 'string' &&
      options.unique.length > 0 &&
      options.unique.length <= 255 &&
      isStorableText(options.unique)
    ) {
      resolved.uniqueKey = `key:${options.unique}`;
    } else if (options.unique !== false) {
      throw new InvalidOptionError(at('unique'), 'true, false or a key of 1-255 characters', options.unique);
    }
  }
  if (resolved.uniqueKey && (options.idempotencyKey !== undefined || options.uniqueFor !== undefined)) {
    throw new InvalidOptionError(at('unique'), 'unique without idempotencyKey or uniqueFor', options.unique);
  }
  if (options.idempotencyKey !== undefined) {
    const idem = checkObject(options.idempotencyKey, at('idempotencyKey'));
    checkKnownKeys(idem, at('idempotencyKey'), ['key', 'ttlSeconds']);
    const key = checkString(idem.key, at('idempotencyKey.key'), { max: 255 });
    const ttlSeconds = checkSeconds(idem.ttlSeconds, at('idempotencyKey.ttlSeconds'), { exclusiveMin: true });
    resolved.lock = { scope: `idem:${queue}:${key}`, ttlSeconds };
  }
  if (options.uniqueFor !== undefined) {
    const ttlSeconds = checkSeconds(options.uniqueFor, at('uniqueFor'), { exclusiveMin: true });
    resolved.lock = { scope: `data:${queue}:${sha256(canonicalJson(dataText))}`, ttlSeconds };
  }
  return resolved;
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
