import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import * as api from '../../src/index.js';
import {
  ChildJobFailedError,
  InvalidJobStateError,
  InvalidOptionError,
  InvalidRetentionPolicyError,
  JobFailedError,
  JobInFlightError,
  TidemarkError,
} from '../../src/index.js';
import { ONE_OF_EVERY_ERROR } from '../support/every-error.js';

// The codes are part of the public contract: users match on them. Changing one is a breaking change.
const CODE_OF_CLASS: Record<string, string> = {
  InvalidOptionError: 'INVALID_OPTION',
  InvalidRetentionPolicyError: 'INVALID_RETENTION_POLICY',
  RetentionUnsupportedError: 'RETENTION_UNSUPPORTED',
  JobNotFoundError: 'JOB_NOT_FOUND',
  QueueNotFoundError: 'QUEUE_NOT_FOUND',
  InvalidJobStateError: 'INVALID_JOB_STATE',
  JobInFlightError: 'JOB_IN_FLIGHT',
  AncestorInFlightError: 'ANCESTOR_IN_FLIGHT',
  PartOfWorkflowError: 'PART_OF_WORKFLOW',
  JobHasChildrenError: 'JOB_HAS_CHILDREN',
  JobHeldError: 'JOB_HELD',
  UniqueKeyConflictError: 'UNIQUE_KEY_CONFLICT',
  HoldNotFoundError: 'HOLD_NOT_FOUND',
  HoldsChangingError: 'HOLDS_CHANGING',
  DatabaseConflictError: 'DATABASE_CONFLICT',
  PermissionDeniedError: 'PERMISSION_DENIED',
  RetentionPausedError: 'RETENTION_PAUSED',
  UnknownSignalError: 'UNKNOWN_SIGNAL',
  SchemaNotFoundError: 'SCHEMA_NOT_FOUND',
  SchemaConflictError: 'SCHEMA_CONFLICT',
  WorkerIdInUseError: 'WORKER_ID_IN_USE',
  SchemaTooNewError: 'SCHEMA_TOO_NEW',
  DriverClosedError: 'CLOSED',
  DatabaseLockedError: 'DATABASE_LOCKED',
  DatabaseFolderError: 'DATABASE_FOLDER_UNUSABLE',
  DatabaseFullError: 'DATABASE_FULL',
  TransactionMisuseError: 'TRANSACTION_MISUSE',
  TransactionClosedError: 'TRANSACTION_CLOSED',
  JobTimeoutError: 'JOB_TIMEOUT',
  OutcomeRefusedError: 'OUTCOME_REFUSED',
  DuplicateStepError: 'DUPLICATE_STEP',
  ChildJobFailedError: 'CHILD_JOB_FAILED',
  JobFailedError: 'JOB_FAILED',
  ResultTimeoutError: 'RESULT_TIMEOUT',
  ScheduleNotFoundError: 'SCHEDULE_NOT_FOUND',
  BulkSetGrewError: 'BULK_SET_GREW',
  InsecureDashboardError: 'INSECURE_DASHBOARD',
  JobValidationError: 'JOB_VALIDATION',
  StillBusyError: 'STILL_BUSY',
  LimiterNotFoundError: 'LIMITER_NOT_FOUND',
  LimiterRefusedError: 'LIMITER_REFUSED',
  NonDeterminismError: 'NON_DETERMINISM',
  BatchOutcomeError: 'BATCH_OUTCOME',
  BatchKeyError: 'BATCH_KEY',
  TokenNotFoundError: 'TOKEN_NOT_FOUND',
  TokenClosedError: 'TOKEN_CLOSED',
  TokenPayloadError: 'TOKEN_PAYLOAD',
  TokensNotConfiguredError: 'TOKENS_NOT_CONFIGURED',
};

const CASES: [string, TidemarkError, string][] = ONE_OF_EVERY_ERROR.map((error) => [
  error.constructor.name,
  error,
  CODE_OF_CLASS[error.constructor.name],
]);

/** Every TidemarkError class the package exports. */
const EXPORTED = Object.entries(api).filter(
  ([, value]) => typeof value === 'function' && value.prototype instanceof TidemarkError,
);

describe('typed errors', () => {
  for (const [name, error, code] of CASES) {
    test(`${name} has the stable code ${code}`, () => {
      assert.ok(error instanceof TidemarkError);
      assert.ok(error instanceof Error);
      assert.equal(error.code, code);
      assert.equal(error.name, name);
      assert.ok(error.message.length > 0);
      assert.equal(typeof error.details, 'object');
    });
  }

  test('ERROR_CODES lists exactly the codes the classes carry, each once', () => {
    assert.deepEqual([...api.ERROR_CODES].sort(), [...new Set(CASES.map(([, , code]) => code))].sort());
    assert.equal(new Set(api.ERROR_CODES).size, api.ERROR_CODES.length);
  });

  test('InvalidOptionError names the field and says what was expected', () => {
    const error = new InvalidOptionError('backoff.delaySeconds', 'a number of seconds >= 0', -1);
    assert.equal(error.field, 'backoff.delaySeconds');
    assert.match(error.message, /backoff\.delaySeconds/);
    assert.match(error.message, /-1/);
    assert.deepEqual(error.details, { field: 'backoff.delaySeconds', expected: 'a number of seconds >= 0' });
  });

  test('every exported error class is listed here, and in docs/concepts.md with its code', () => {
    const listed = CASES.map(([name]) => name).sort();
    assert.deepEqual(EXPORTED.map(([name]) => name).sort(), listed);
    const doc = readFileSync('docs/concepts.md', 'utf8');
    for (const [name, , code] of CASES) {
      assert.match(
        doc,
        new RegExp(`^\\| \`${name}\` \\| \`${code}\` \\| `, 'm'),
        `${name} in docs/concepts.md`,
      );
    }
  });

  test('failure errors carry the cause in their message', () => {
    const error = { name: 'TypeError', message: 'bad input' };
    assert.equal(
      new JobFailedError('7', 'failed', error).message,
      'job 7 ended failed: TypeError: bad input',
    );
    assert.equal(
      new ChildJobFailedError('8', 'failed', { name: 'Error', message: 'no stock' }, 'reserve').message,
      "child job 8 (queue 'reserve') ended failed: no stock",
    );
    assert.equal(new JobFailedError('7', 'cancelled', null).message, 'job 7 ended cancelled');
  });

  test('refinements are caught by their parent class', () => {
    assert.ok(new JobInFlightError('1', 'active') instanceof InvalidJobStateError);
    assert.ok(new InvalidRetentionPolicyError('r', 'x') instanceof InvalidOptionError);
  });
});
