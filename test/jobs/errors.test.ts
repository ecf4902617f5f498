import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import * as api from '../../src/index.js';
import {
  AncestorInFlightError,
  BulkSetGrewError,
  ChildJobFailedError,
  DatabaseConflictError,
  DatabaseFolderError,
  DatabaseFullError,
  DatabaseLockedError,
  DriverClosedError,
  DuplicateStepError,
  HoldNotFoundError,
  HoldsChangingError,
  InsecureDashboardError,
  InvalidJobStateError,
  InvalidOptionError,
  InvalidRetentionPolicyError,
  JobFailedError,
  JobHasChildrenError,
  JobHeldError,
  JobInFlightError,
  JobNotFoundError,
  JobTimeoutError,
  OutcomeRefusedError,
  PartOfWorkflowError,
  QueueNotFoundError,
  ResultTimeoutError,
  RetentionPausedError,
  RetentionUnsupportedError,
  ScheduleNotFoundError,
  SchemaConflictError,
  SchemaNotFoundError,
  SchemaTooNewError,
  TidemarkError,
  TransactionClosedError,
  TransactionMisuseError,
  UniqueKeyConflictError,
  UnknownSignalError,
  WorkerIdInUseError,
} from '../../src/index.js';

// The codes are part of the public contract: users match on them. Changing one is a breaking change.
const CASES: [string, TidemarkError, string][] = [
  ['InvalidOptionError', new InvalidOptionError('a.b', 'a number', 'x'), 'INVALID_OPTION'],
  [
    'InvalidRetentionPolicyError',
    new InvalidRetentionPolicyError('retention.completed', 'a window', -1),
    'INVALID_RETENTION_POLICY',
  ],
  ['RetentionUnsupportedError', new RetentionUnsupportedError('sweep'), 'RETENTION_UNSUPPORTED'],
  ['JobNotFoundError', new JobNotFoundError('7'), 'JOB_NOT_FOUND'],
  ['QueueNotFoundError', new QueueNotFoundError('q'), 'QUEUE_NOT_FOUND'],
  ['InvalidJobStateError', new InvalidJobStateError('7', 'active', 'no'), 'INVALID_JOB_STATE'],
  ['JobInFlightError', new JobInFlightError('7', 'active'), 'JOB_IN_FLIGHT'],
  ['AncestorInFlightError', new AncestorInFlightError('7', '3', 'active'), 'ANCESTOR_IN_FLIGHT'],
  ['PartOfWorkflowError', new PartOfWorkflowError('7', '3'), 'PART_OF_WORKFLOW'],
  ['JobHasChildrenError', new JobHasChildrenError('7'), 'JOB_HAS_CHILDREN'],
  ['JobHeldError', new JobHeldError('7', '2', 'audit'), 'JOB_HELD'],
  ['UniqueKeyConflictError', new UniqueKeyConflictError('7', 'q', 'k', '8'), 'UNIQUE_KEY_CONFLICT'],
  ['HoldNotFoundError', new HoldNotFoundError('2'), 'HOLD_NOT_FOUND'],
  ['HoldsChangingError', new HoldsChangingError(20), 'HOLDS_CHANGING'],
  ['DatabaseConflictError', new DatabaseConflictError('40P01', 6), 'DATABASE_CONFLICT'],
  ['RetentionPausedError', new RetentionPausedError('audit', null), 'RETENTION_PAUSED'],
  ['UnknownSignalError', new UnknownSignalError('q', 's'), 'UNKNOWN_SIGNAL'],
  ['SchemaNotFoundError', new SchemaNotFoundError('tidemark', 0, 3), 'SCHEMA_NOT_FOUND'],
  ['SchemaConflictError', new SchemaConflictError('public', ['jobs']), 'SCHEMA_CONFLICT'],
  ['WorkerIdInUseError', new WorkerIdInUseError('w-1', 'node-a', 42, 3, 60), 'WORKER_ID_IN_USE'],
  ['SchemaTooNewError', new SchemaTooNewError('tidemark', 9, 1), 'SCHEMA_TOO_NEW'],
  ['DriverClosedError', new DriverClosedError(), 'CLOSED'],
  ['DatabaseLockedError', new DatabaseLockedError('/tmp/x', 1), 'DATABASE_LOCKED'],
  ['DatabaseFolderError', new DatabaseFolderError('/tmp/x', 'EACCES'), 'DATABASE_FOLDER_UNUSABLE'],
  ['DatabaseFullError', new DatabaseFullError('/tmp/x', 'stopped'), 'DATABASE_FULL'],
  ['TransactionMisuseError', new TransactionMisuseError(), 'TRANSACTION_MISUSE'],
  ['TransactionClosedError', new TransactionClosedError(), 'TRANSACTION_CLOSED'],
  ['JobTimeoutError', new JobTimeoutError(5), 'JOB_TIMEOUT'],
  [
    'OutcomeRefusedError',
    new OutcomeRefusedError(
      '7',
      'error',
      Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' }),
    ),
    'OUTCOME_REFUSED',
  ],
  ['DuplicateStepError', new DuplicateStepError('s'), 'DUPLICATE_STEP'],
  ['ChildJobFailedError', new ChildJobFailedError('8', 'failed', null), 'CHILD_JOB_FAILED'],
  ['JobFailedError', new JobFailedError('7', 'failed', null), 'JOB_FAILED'],
  ['ResultTimeoutError', new ResultTimeoutError('7', 'active', 1), 'RESULT_TIMEOUT'],
  ['ScheduleNotFoundError', new ScheduleNotFoundError('s'), 'SCHEDULE_NOT_FOUND'],
  ['BulkSetGrewError', new BulkSetGrewError('retry', 5, 3), 'BULK_SET_GREW'],
  ['InsecureDashboardError', new InsecureDashboardError('0.0.0.0'), 'INSECURE_DASHBOARD'],
];

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
