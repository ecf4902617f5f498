import { InvalidOptionError } from '../errors.js';
import { MAX_KEY_LENGTH } from '../intake/job-options.js';
import { MAX_KEY_CONCURRENCY, type StoredKeysRule } from '../model/keys.js';
import { checkInteger, checkKnownFields, checkObject, checkString } from '../options/check.js';

const KEYS_FIELDS = ['concurrency', 'order', 'fairness'];

/** Check `createQueue`'s `keys` and turn it into the rule the claim reads; errors name the field. */
export function checkKeysRule(input: unknown, field: string): StoredKeysRule {
  const keys = checkObject(input, field);
  checkKnownFields(keys, field, KEYS_FIELDS);
  const rule: StoredKeysRule = { concurrency: 0, tiers: {}, order: 'priority', fair: false, weights: {} };
  const concurrency = keys.concurrency;
  if (typeof concurrency === 'object' && concurrency !== null) {
    const given = checkObject(concurrency, `${field}.concurrency`);
    checkKnownFields(given, `${field}.concurrency`, ['default', 'tiers']);
    rule.concurrency = checkLimit(given.default, `${field}.concurrency.default`);
    if (given.tiers !== undefined)
      rule.tiers = checkNumbers(given.tiers, `${field}.concurrency.tiers`, checkLimit);
  } else {
    rule.concurrency = checkLimit(concurrency, `${field}.concurrency`);
  }
  if (keys.order !== undefined) {
    if (keys.order !== 'fifo' && keys.order !== 'priority')
      throw new InvalidOptionError(`${field}.order`, "'fifo' or 'priority'", keys.order);
    rule.order = keys.order;
  }
  const fairness = keys.fairness;
  if (fairness === 'round-robin') rule.fair = true;
  else if (typeof fairness === 'object' && fairness !== null) {
    const given = checkObject(fairness, `${field}.fairness`);
    checkKnownFields(given, `${field}.fairness`, ['weights']);
    rule.fair = true;
    rule.weights = checkNumbers(given.weights, `${field}.fairness.weights`, checkWeight);
  } else if (fairness !== undefined) {
    throw new InvalidOptionError(`${field}.fairness`, "'round-robin' or { weights }", fairness);
  }
  return rule;
}

/** A limit of jobs running at once: a positive integer. */
export function checkLimit(value: unknown, field: string): number {
  return checkInteger(value, field, 1, MAX_KEY_CONCURRENCY);
}

function checkWeight(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1_000_000)
    throw new InvalidOptionError(field, 'a number > 0 and <= 1000000', value);
  return value;
}

function checkNumbers(
  input: unknown,
  field: string,
  check: (value: unknown, field: string) => number,
): Record<string, number> {
  const given = checkObject(input, field);
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(given)) {
    checkString(name, `${field} (name)`, { max: MAX_KEY_LENGTH });
    out[name] = check(value, `${field}.${name}`);
  }
  return out;
}
