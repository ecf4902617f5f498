/**
 * The rules every way in checks a job against, written once: the id form, the priority and
 * attempt ranges. Options, the CLI, the dashboard's routes and the SQL validation all read
 * these.
 */

/** The decimal digits of a job id (or any bigint id): a positive number, at most 19 digits. */
export const ID_DIGITS = '[1-9][0-9]{0,18}';

/** The largest bigint: 19 digits can still pass it. */
export const MAX_ID = 9_223_372_036_854_775_807n;

const ID_PATTERN = new RegExp(`^${ID_DIGITS}$`);

/** Whether `text` is an id the database can hold (a positive bigint, in decimal). */
export function isId(text: string): boolean {
  return ID_PATTERN.test(text) && BigInt(text) <= MAX_ID;
}

/** A job's priority: higher runs first. */
export const PRIORITY = { min: -1_000_000, max: 1_000_000, default: 0 } as const;

/** How many attempts a job gets in all (the first run and its retries). */
export const MAX_ATTEMPTS = { min: 1, max: 1_000, default: 3 } as const;
