import { describe, TidemarkError } from './base.js';

/**
 * An option or argument was missing, of the wrong type or out of range, or could not be read
 * (a getter or a Proxy that throws: that error is `cause`). `field` names it.
 */
export class InvalidOptionError extends TidemarkError {
  readonly field: string;
  constructor(field: string, expected: string, got?: unknown, cause?: unknown) {
    super(
      'INVALID_OPTION',
      `invalid option '${field}': expected ${expected}, got ${cause === undefined ? describe(got) : `an error: ${describeCause(cause)}`}`,
      { field, expected },
      cause === undefined ? undefined : { cause },
    );
    this.field = field;
  }
}

function describeCause(cause: unknown): string {
  try {
    return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  } catch {
    return 'an unprintable value';
  }
}

/** A retention policy was malformed (negative window, unknown status, both shapes mixed …). */
export class InvalidRetentionPolicyError extends InvalidOptionError {
  constructor(field: string, expected: string, got?: unknown) {
    super(field, expected, got);
    this.recode('INVALID_RETENTION_POLICY');
  }
}
