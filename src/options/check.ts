import { InvalidOptionError } from '../errors.js';
import { isRecord } from '../model/guards.js';
import { isId } from '../model/job-rules.js';

/** Small field checkers: each returns the value typed, or throws InvalidOptionError naming the field. */

export function checkObject(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) throw new InvalidOptionError(field, 'an object', value);
  return value;
}

export function checkString(value: unknown, field: string, { max = 200 }: { max?: number } = {}): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max || !isStorableText(value)) {
    throw new InvalidOptionError(
      field,
      `a non-empty string of at most ${max} characters, without NUL or unpaired surrogates`,
      value,
    );
  }
  return value;
}

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Text PostgreSQL stores as given: text and jsonb refuse NUL, jsonb refuses an unpaired
 * UTF-16 surrogate, and text would silently turn one into U+FFFD.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);
}

export function checkInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionError(field, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

/** A duration in seconds: a finite number, fractions allowed. */
export function checkSeconds(
  value: unknown,
  field: string,
  { min = 0, max = 3.2e9, exclusiveMin = false } = {},
): number {
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (exclusiveMin ? value <= min : value < min) ||
    value > max
  ) {
    throw new InvalidOptionError(
      field,
      `a number of seconds ${exclusiveMin ? '>' : '>='} ${min} and <= ${max}`,
      value,
    );
  }
  return value;
}

export function checkBoolean(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidOptionError(field, 'true or false', value);
  return value;
}

/** Years 1 to 9999: what PostgreSQL's timestamptz reads back from an ISO 8601 string. */
const MIN_DATE = Date.parse('0001-01-01T00:00:00.000Z');
const MAX_DATE = Date.parse('9999-12-31T23:59:59.999Z');

export function checkDate(value: unknown, field: string): Date {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  const time = date?.getTime() ?? Number.NaN;
  if (!date || Number.isNaN(time) || time < MIN_DATE || time > MAX_DATE)
    throw new InvalidOptionError(field, 'a Date or an ISO 8601 string, in the years 1 to 9999', value);
  return date;
}

/** A job id (or another bigint id, such as a hold's): its decimal string, or a safe integer. */
export function checkId(id: unknown, field = 'id', what = 'a job id'): string {
  const text = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : id;
  if (typeof text !== 'string' || !isId(text)) throw new InvalidOptionError(field, what, id);
  return text;
}

/** Refuse a field of `value` that is not among `known`, naming it under `field`. */
export function checkKnownFields(
  value: Record<string, unknown>,
  field: string,
  known: readonly string[],
): void {
  for (const name of Object.keys(value)) {
    if (!known.includes(name))
      throw new InvalidOptionError(`${field}.${name}`, 'no such option', value[name]);
  }
}
