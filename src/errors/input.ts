import { describe, TidemarkError } from './base.js';

/** An option or argument was missing, of the wrong type or out of range. `field` names it. */
export class InvalidOptionError extends TidemarkError {
  readonly field: string;
  constructor(field: string, expected: string, got?: unknown) {
    super('INVALID_OPTION', `invalid option '${field}': expected ${expected}, got ${describe(got)}`, {
      field,
      expected,
    });
    this.field = field;
  }
}

/** A retention policy was malformed (negative window, unknown status, both shapes mixed …). */
export class InvalidRetentionPolicyError extends InvalidOptionError {
  constructor(field: string, expected: string, got?: unknown) {
    super(field, expected, got);
    (this as { code: string }).code = 'INVALID_RETENTION_POLICY';
  }
}
