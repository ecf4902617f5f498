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

/** One problem a schema found: where (a path of keys into the value) and what. */
export interface ValidationIssue {
  /** Keys from the top of the value to the part at fault; empty for the value itself. */
  path: (string | number)[];
  message: string;
}

/** What a schema was checking when it found issues. */
export type ValidatedValue = 'data' | 'output' | `signal '${string}'`;

/**
 * A queue's schema refused a value: job data at add (nothing was written) or when a worker
 * claimed the job (the job fails at once, with no retry, unless the queue's `upgrade`
 * repairs it), a handler's output (the attempt fails), or a signal's payload. `issues` lists
 * each problem with its path.
 */
export class JobValidationError extends TidemarkError {
  readonly queue: string;
  readonly value: ValidatedValue;
  readonly issues: ValidationIssue[];
  /** False for data and signal payloads: another attempt would read the same stored value. */
  readonly retryable: boolean;
  constructor(queue: string, value: ValidatedValue, issues: ValidationIssue[]) {
    const listed = issues
      .slice(0, 10)
      .map((issue) => `${issue.path.length === 0 ? '(value)' : issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    super(
      'JOB_VALIDATION',
      `queue '${queue}' refused the ${value}: ${listed}${issues.length > 10 ? `; and ${issues.length - 10} more` : ''}`,
      { queue, value, issues },
    );
    this.queue = queue;
    this.value = value;
    this.issues = issues;
    this.retryable = value === 'output';
  }
}
