import { UsageError } from './cli-io.js';

/** The values a whole-number flag takes; `max` absent: no upper bound here. */
export interface WholeNumberRange {
  min: number;
  max?: number;
  /** How the refusal states the values taken, when not from `min` to `max`. */
  says?: string;
}

/**
 * A whole-number flag's value, or undefined when the flag was not given. Digits only: `Number`
 * would also take a blank (as 0), a sign, an exponent or hex, none of which a user means.
 */
export function wholeNumberOption(
  flag: string,
  text: string | undefined,
  range: WholeNumberRange,
): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (n >= range.min && n <= (range.max ?? Number.MAX_SAFE_INTEGER)) return n;
  const says =
    range.says ??
    (range.max === undefined ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`);
  throw new UsageError(`${flag} must be a whole number ${says}, got '${text}'`);
}

/** `--port N`: 0 (any free port) to 65535. */
export function portOption(text: string | undefined): number | undefined {
  return wholeNumberOption('--port', text, { min: 0, max: 65_535 });
}
