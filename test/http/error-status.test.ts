import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DatabaseLockedError,
  DriverClosedError,
  ERROR_CODES,
  type ErrorCode,
  HoldNotFoundError,
  InvalidOptionError,
  JobNotFoundError,
  JobValidationError,
  LimiterNotFoundError,
  PermissionDeniedError,
  QueueNotFoundError,
  ScheduleNotFoundError,
  TidemarkError,
  TokenClosedError,
  TokenNotFoundError,
  TokenPayloadError,
} from '../../src/errors.js';
import { statusOfError } from '../../src/http/error-status.js';
import { ONE_OF_EVERY_ERROR } from '../support/every-error.js';

/** The status each code answers with: part of what an HTTP client sees, so changing one is deliberate. */
const EXPECTED: Record<ErrorCode, number> = {
  JOB_NOT_FOUND: 404,
  QUEUE_NOT_FOUND: 404,
  HOLD_NOT_FOUND: 404,
  SCHEDULE_NOT_FOUND: 404,
  LIMITER_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  TOKEN_CLOSED: 410,
  INVALID_OPTION: 400,
  INVALID_RETENTION_POLICY: 400,
  JOB_VALIDATION: 400,
  TOKEN_PAYLOAD: 400,
  PERMISSION_DENIED: 403,
  CLOSED: 503,
  DATABASE_LOCKED: 503,
  ANCESTOR_IN_FLIGHT: 409,
  BATCH_KEY: 409,
  BATCH_OUTCOME: 409,
  BULK_SET_GREW: 409,
  CHILD_JOB_FAILED: 409,
  DATABASE_CONFLICT: 409,
  DATABASE_FOLDER_UNUSABLE: 409,
  DATABASE_FULL: 409,
  DUPLICATE_STEP: 409,
  HOLDS_CHANGING: 409,
  INSECURE_DASHBOARD: 409,
  INVALID_JOB_STATE: 409,
  JOB_FAILED: 409,
  JOB_HAS_CHILDREN: 409,
  JOB_HELD: 409,
  JOB_IN_FLIGHT: 409,
  JOB_TIMEOUT: 409,
  LIMITER_REFUSED: 409,
  NON_DETERMINISM: 409,
  OUTCOME_REFUSED: 409,
  PART_OF_WORKFLOW: 409,
  RESULT_TIMEOUT: 409,
  RETENTION_PAUSED: 409,
  RETENTION_UNSUPPORTED: 409,
  SCHEMA_CONFLICT: 409,
  SCHEMA_NOT_FOUND: 409,
  SCHEMA_TOO_NEW: 409,
  STILL_BUSY: 409,
  TOKENS_NOT_CONFIGURED: 409,
  TRANSACTION_CLOSED: 409,
  TRANSACTION_MISUSE: 409,
  UNIQUE_KEY_CONFLICT: 409,
  UNKNOWN_SIGNAL: 409,
  WORKER_ID_IN_USE: 409,
};

/** The dashboard's mapping before statuses were read from the code: by class, parents included. */
function statusByClass(error: TidemarkError): number {
  if (
    error instanceof JobNotFoundError ||
    error instanceof QueueNotFoundError ||
    error instanceof HoldNotFoundError ||
    error instanceof ScheduleNotFoundError ||
    // Added after the mapping by class: a name that finds nothing, as the four above.
    error instanceof LimiterNotFoundError
  )
    return 404;
  if (error instanceof InvalidOptionError || error instanceof JobValidationError) return 400;
  if (error instanceof DriverClosedError || error instanceof DatabaseLockedError) return 503;
  // Added after the mapping by class: the database role may not do what was asked.
  if (error instanceof PermissionDeniedError) return 403;
  // Added after the mapping by class: callback tokens (none of that id, closed, a refused payload).
  if (error instanceof TokenNotFoundError) return 404;
  if (error instanceof TokenClosedError) return 410;
  if (error instanceof TokenPayloadError) return 400;
  return 409;
}

describe('statusOfError', () => {
  test('the table names every code of ERROR_CODES, and only those', () => {
    assert.deepEqual(Object.keys(EXPECTED).sort(), [...ERROR_CODES].sort());
  });

  for (const code of ERROR_CODES) {
    test(`${code} answers ${EXPECTED[code]}`, () => {
      const error = ONE_OF_EVERY_ERROR.find((candidate) => candidate.code === code);
      assert.ok(error, `an error of every code is thrown here: add one for ${code}`);
      assert.equal(statusOfError(error), EXPECTED[code]);
    });
  }

  test('each class answers what its place among the classes gave it before', () => {
    for (const error of ONE_OF_EVERY_ERROR)
      assert.equal(statusOfError(error), statusByClass(error), error.name);
  });

  test('an error that is not a TidemarkError is no refusal: it gets no status (the server answers 500)', () => {
    assert.equal(statusOfError(new Error('boom')), undefined);
    assert.equal(statusOfError(Object.assign(new Error('look-alike'), { code: 'JOB_NOT_FOUND' })), undefined);
    assert.equal(statusOfError({ code: 'JOB_NOT_FOUND', message: 'a plain object' }), undefined);
    assert.equal(statusOfError('JOB_NOT_FOUND'), undefined);
    assert.equal(statusOfError(undefined), undefined);
  });

  test('a TidemarkError whose code is in no list is refused as a conflict, as before', () => {
    const unlisted = new TidemarkError('NOT_A_CODE' as ErrorCode, 'made up');
    assert.equal(statusOfError(unlisted), 409);
    const inherited = new TidemarkError('toString' as ErrorCode, 'a name every object inherits');
    assert.equal(statusOfError(inherited), 409);
  });
});
