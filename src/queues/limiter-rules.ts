import { InvalidOptionError, LimiterRefusedError } from '../errors.js';
import { MAX_KEY_LENGTH } from '../intake/job-options.js';
import type { LimiterEntry, QueueLimiter, StoredQueueLimiter } from '../model/limiter.js';
import { checkKnownFields, checkObject, checkString } from '../options/check.js';

/** The most limiters one queue names. */
export const MAX_QUEUE_LIMITERS = 10;

/** The most tokens one job may take from one bucket. */
const MAX_COST = 1_000_000;

/** Check a queue's `limiters` option: named limiters, each with an optional key and cost function. */
export function checkQueueLimiters(input: unknown, field: string): QueueLimiter[] {
  if (!Array.isArray(input) || input.length > MAX_QUEUE_LIMITERS) {
    throw new InvalidOptionError(field, `an array of at most ${MAX_QUEUE_LIMITERS} limiters`, input);
  }
  const seen = new Set<string>();
  return input.map((item, i) => {
    const at = `${field}[${i}]`;
    const rule = checkObject(item, at);
    checkKnownFields(rule, at, ['name', 'key', 'cost']);
    const name = checkString(rule.name, `${at}.name`);
    if (seen.has(name)) throw new InvalidOptionError(`${at}.name`, 'a limiter not named twice', name);
    seen.add(name);
    const out: QueueLimiter = { name };
    for (const part of ['key', 'cost'] as const) {
      const fn = rule[part];
      if (fn === undefined) continue;
      if (typeof fn !== 'function')
        throw new InvalidOptionError(`${at}.${part}`, 'a function (data) => …', fn);
      out[part] = fn as (data: unknown) => never;
    }
    return out;
  });
}

/** What a queue's limiters store: their names, and whether each has a key and a cost. */
export function storedLimiters(rules: QueueLimiter[]): StoredQueueLimiter[] {
  return rules.map((rule) => ({
    name: rule.name,
    keyed: rule.key !== undefined,
    costed: rule.cost !== undefined,
  }));
}

/**
 * The buckets a job takes tokens from, by its queue's rules: one entry per limiter, with its
 * key and cost computed from the job's data; a cost of 0 takes nothing and is left out.
 * LimiterRefusedError when a rule's function throws or gives a value that is no key or cost.
 */
export function limiterEntries(rules: QueueLimiter[], data: unknown): LimiterEntry[] {
  const entries: LimiterEntry[] = [];
  for (let i = 0; i < rules.length; i++) {
    const { name, key, cost } = rules[i];
    const bucketKey = key === undefined ? '' : apply(name, `limiters[${i}].key`, () => key(data));
    if (typeof bucketKey !== 'string' || bucketKey.length > MAX_KEY_LENGTH) {
      throw new LimiterRefusedError(
        name,
        `limiters[${i}].key`,
        `gave ${describeValue(bucketKey)}, not a string of at most ${MAX_KEY_LENGTH} characters`,
      );
    }
    const tokens = cost === undefined ? 1 : apply(name, `limiters[${i}].cost`, () => cost(data));
    if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0 || tokens > MAX_COST) {
      throw new LimiterRefusedError(
        name,
        `limiters[${i}].cost`,
        `gave ${describeValue(tokens)}, not a whole number of tokens from 0 to ${MAX_COST}`,
      );
    }
    if (tokens > 0) entries.push({ name, key: bucketKey, cost: tokens });
  }
  return entries;
}

function apply<T>(limiter: string, field: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw new LimiterRefusedError(limiter, field, `threw ${String(error)}`, { cause: error });
  }
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `a string of ${value.length} characters`;
  if (typeof value === 'number') return String(value);
  return value === null ? 'null' : typeof value;
}
