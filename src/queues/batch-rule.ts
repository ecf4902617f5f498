import { BatchKeyError, InvalidOptionError } from '../errors.js';
import { MAX_KEY_LENGTH } from '../intake/job-options.js';
import type { BatchRule } from '../model/batch.js';
import type { Job } from '../model/job.js';
import { checkInteger, checkKnownFields, checkObject, checkSeconds } from '../options/check.js';

/** The most jobs one batch takes. */
export const MAX_BATCH_SIZE = 1_000;

/** The longest a batch waits to fill: an hour. */
export const MAX_BATCH_WAIT_SECONDS = 3_600;

/** Check a queue's `batch` option: its size, its wait, and its key (`true` or a function). */
export function checkBatch(input: unknown, field: string): BatchRule {
  const batch = checkObject(input, field);
  checkKnownFields(batch, field, ['maxSize', 'maxWaitSeconds', 'key']);
  const rule: BatchRule = {
    maxSize: checkInteger(batch.maxSize, `${field}.maxSize`, 1, MAX_BATCH_SIZE),
    maxWaitSeconds: checkSeconds(batch.maxWaitSeconds, `${field}.maxWaitSeconds`, {
      max: MAX_BATCH_WAIT_SECONDS,
    }),
  };
  const { key } = batch;
  if (key === true) rule.key = (job) => job.key;
  else if (typeof key === 'function') rule.key = (job) => batchKeyOf(job, key as (data: unknown) => unknown);
  else if (key !== undefined)
    throw new InvalidOptionError(`${field}.key`, 'true or a function (data) => string', key);
  return rule;
}

/** A job's batch key by the queue's function; BatchKeyError when it throws or gives no key. */
function batchKeyOf(job: Job, key: (data: unknown) => unknown): string {
  let value: unknown;
  try {
    value = key(job.data);
  } catch (error) {
    throw new BatchKeyError(job.id, `threw ${String(error)}`, { cause: error });
  }
  if (typeof value !== 'string' || value.length > MAX_KEY_LENGTH) {
    throw new BatchKeyError(
      job.id,
      `gave ${typeof value === 'string' ? 'a string too long' : String(value)}, not a string of at most ${MAX_KEY_LENGTH} characters`,
    );
  }
  return value;
}
