import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ChildJobFailedError,
  DatabaseLockedError,
  DriverClosedError,
  DuplicateStepError,
  InvalidJobStateError,
  InvalidOptionError,
  InvalidRetentionPolicyError,
  JobFailedError,
  JobHasChildrenError,
  JobInFlightError,
  JobNotFoundError,
  JobTimeoutError,
  QueueNotFoundError,
  ScheduleNotFoundError,
  SchemaTooNewError,
  TidemarkError,
  TransactionMisuseError,
  UnknownSignalError,
} from '../../src/index.js';

// The codes are part of the public contract: users match on them. Changing one is a breaking change.
const CASES: [string, TidemarkError, string][] = [
  ['InvalidOptionError', new InvalidOptionError('a.b', 'a number', 'x'), 'INVALID_OPTION'],
  [
    'InvalidRetentionPolicyError',
    new InvalidRetentionPolicyError('retention.completed', 'a window', -1),
    'INVALID_RETENTION_POLICY',
  ],
  ['JobNotFoundError', new JobNotFoundError('7'), 'JOB_NOT_FOUND'],
  ['QueueNotFoundError', new QueueNotFoundError('q'), 'QUEUE_NOT_FOUND'],
  ['InvalidJobStateError', new InvalidJobStateError('7', 'active', 'no'), 'INVALID_JOB_STATE'],
  ['JobInFlightError', new JobInFlightError('7', 'active'), 'JOB_IN_FLIGHT'],
  ['JobHasChildrenError', new JobHasChildrenError('7'), 'JOB_HAS_CHILDREN'],
  ['UnknownSignalError', new UnknownSignalError('q', 's'), 'UNKNOWN_SIGNAL'],
  ['SchemaTooNewError', new SchemaTooNewError('tidemark', 9, 1), 'SCHEMA_TOO_NEW'],
  ['DriverClosedError', new DriverClosedError(), 'CLOSED'],
  ['DatabaseLockedError', new DatabaseLockedError('/tmp/x', 1), 'DATABASE_LOCKED'],
  ['TransactionMisuseError', new TransactionMisuseError(), 'TRANSACTION_MISUSE'],
  ['JobTimeoutError', new JobTimeoutError(5), 'JOB_TIMEOUT'],
  ['DuplicateStepError', new DuplicateStepError('s'), 'DUPLICATE_STEP'],
  ['ChildJobFailedError', new ChildJobFailedError('8', 'failed', null), 'CHILD_JOB_FAILED'],
  ['JobFailedError', new JobFailedError('7', 'failed', null), 'JOB_FAILED'],
  ['ScheduleNotFoundError', new ScheduleNotFoundError('s'), 'SCHEDULE_NOT_FOUND'],
];

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

  test('InvalidOptionError names the field and says what was expected', () => {
    const error = new InvalidOptionError('backoff.delaySeconds', 'a number of seconds >= 0', -1);
    assert.equal(error.field, 'backoff.delaySeconds');
    assert.match(error.message, /backoff\.delaySeconds/);
    assert.match(error.message, /-1/);
    assert.deepEqual(error.details, { field: 'backoff.delaySeconds', expected: 'a number of seconds >= 0' });
  });

  test('refinements are caught by their parent class', () => {
    assert.ok(new JobInFlightError('1', 'active') instanceof InvalidJobStateError);
    assert.ok(new InvalidRetentionPolicyError('r', 'x') instanceof InvalidOptionError);
  });
});
