import type { ErrorCode } from './codes.js';

/**
 * Every error Tidemark throws on purpose is a `TidemarkError` with a stable `code`.
 * Match on the class or on `code`, never on the message text.
 */
export class TidemarkError extends Error {
  /** Stable machine-readable code, e.g. `'JOB_NOT_FOUND'`: one of ERROR_CODES. */
  readonly code: ErrorCode;
  /** Structured details about what went wrong. */
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }

  /** A subclass that narrows its parent's meaning carries a code of its own. */
  protected recode(code: ErrorCode): void {
    (this as { code: ErrorCode }).code = code;
  }
}

export function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'bigint') return `bigint ${value}`;
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'string') return JSON.stringify(clip(value, 60));
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : clip(text, 80);
  } catch {
    return typeof value;
  }
}

/**
 * The first `max` UTF-16 units of `text` and an ellipsis, or one unit fewer where the cut would
 * split a surrogate pair: half a character is text PostgreSQL refuses to store.
 */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const high = text.charCodeAt(max - 1);
  const end = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
  return `${text.slice(0, end)}…`;
}

/** `: <name>: <message>` of a stored job error, or '' when there is none. */
export function errorSuffix(error: unknown): string {
  if (error === null || error === undefined) return '';
  if (typeof error === 'object' && 'message' in error && typeof error.message === 'string') {
    const name = 'name' in error ? error.name : undefined;
    const label = typeof name === 'string' && name !== '' && name !== 'Error' ? `${name}: ` : '';
    return `: ${label}${error.message}`;
  }
  return `: ${describe(error)}`;
}

/**
 * The `code` a thrown value carries, or undefined: a SQLSTATE (both database drivers put it
 * there), a Node system error's (`ENOENT`, `ECONNREFUSED`) or an `ERR_…` code.
 */
export function codeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
}
