/**
 * Every error Tidemark throws on purpose is a `TidemarkError` with a stable `code`.
 * Match on the class or on `code`, never on the message text. One file per concern under
 * errors/; this module gathers them, so `errors.js` stays the one place to import from.
 */
export { codeOf, TidemarkError } from './errors/base.js';
export { BatchKeyError, BatchOutcomeError } from './errors/batches.js';
export { ERROR_CODES, type ErrorCode } from './errors/codes.js';
export { InsecureDashboardError } from './errors/dashboard.js';
export {
  DatabaseConflictError,
  DatabaseFolderError,
  DatabaseFullError,
  DatabaseLockedError,
  DriverClosedError,
  PermissionDeniedError,
  SchemaConflictError,
  SchemaNotFoundError,
  SchemaTooNewError,
  TransactionClosedError,
  TransactionMisuseError,
} from './errors/database.js';
export {
  AncestorInFlightError,
  HoldNotFoundError,
  HoldsChangingError,
  JobHasChildrenError,
  JobHeldError,
  PartOfWorkflowError,
  RetentionPausedError,
  RetentionUnsupportedError,
} from './errors/deletion.js';
export {
  InvalidOptionError,
  InvalidRetentionPolicyError,
  JobValidationError,
  type ValidatedValue,
  type ValidationIssue,
} from './errors/input.js';
export {
  BulkSetGrewError,
  InvalidJobStateError,
  JobFailedError,
  JobInFlightError,
  JobNotFoundError,
  JobTimeoutError,
  OutcomeRefusedError,
  QueueNotFoundError,
  ResultTimeoutError,
  ScheduleNotFoundError,
  StillBusyError,
  UniqueKeyConflictError,
} from './errors/jobs.js';
export { LimiterNotFoundError, LimiterRefusedError } from './errors/limiters.js';
export {
  TokenClosedError,
  type TokenClosedReason,
  TokenNotFoundError,
  TokenPayloadError,
  TokensNotConfiguredError,
} from './errors/tokens.js';
export { WorkerIdInUseError } from './errors/worker.js';
export {
  ChildJobFailedError,
  DuplicateStepError,
  NonDeterminismError,
  type RecordedCall,
  UnknownSignalError,
} from './errors/workflow.js';
