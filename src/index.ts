export type { ListAuditOptions } from './audit/list-audit.js';
export {
  AncestorInFlightError,
  BatchKeyError,
  BatchOutcomeError,
  BulkSetGrewError,
  ChildJobFailedError,
  DatabaseConflictError,
  DatabaseFolderError,
  DatabaseFullError,
  DatabaseLockedError,
  DriverClosedError,
  DuplicateStepError,
  ERROR_CODES,
  type ErrorCode,
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
  JobValidationError,
  LimiterNotFoundError,
  LimiterRefusedError,
  NonDeterminismError,
  OutcomeRefusedError,
  PartOfWorkflowError,
  PermissionDeniedError,
  QueueNotFoundError,
  type RecordedCall,
  ResultTimeoutError,
  RetentionPausedError,
  RetentionUnsupportedError,
  ScheduleNotFoundError,
  SchemaConflictError,
  SchemaNotFoundError,
  SchemaTooNewError,
  StillBusyError,
  TidemarkError,
  TokenClosedError,
  type TokenClosedReason,
  TokenNotFoundError,
  TokenPayloadError,
  TokensNotConfiguredError,
  TransactionClosedError,
  TransactionMisuseError,
  UniqueKeyConflictError,
  UnknownSignalError,
  type ValidatedValue,
  type ValidationIssue,
  WorkerIdInUseError,
} from './errors.js';
export type { SweepCounts, TidemarkEventName, TidemarkEvents } from './events.js';
export type { AddJobsOptions } from './intake/add-jobs.js';
export type { AddJobInput, AddJobResult } from './intake/job-request.js';
export { ALL_STATUSES, FINISHED_STATUSES, IN_FLIGHT_STATUSES, JobStatus } from './job-status.js';
export type {
  BulkActionName,
  BulkActionOptions,
  BulkJobFilter,
  BulkOutcome,
  BulkRefusal,
  BulkRefusalReason,
  StateActionName,
} from './jobs/bulk-actions.js';
export type { ForkJobOptions, ForkPoint } from './jobs/fork-job.js';
export type { JobDetail } from './jobs/job-detail.js';
export type { JobLogsOptions } from './jobs/job-logs.js';
export type { CountJobsFilter, JobCount, JobPage, ListJobsFilter } from './jobs/list-jobs.js';
export type { JobUpdate, SubscribeOptions } from './jobs/subscribe.js';
export type { QueueTarget } from './jobs/subscribe-queue.js';
export type { TokenCancellation, TokenCompletion } from './jobs/tokens.js';
export { fromPino, fromWinston, type PinoLike, type WinstonLike } from './log/adapters.js';
export { consoleLogger, defaultLogger, type Logger, type LogLevel, silentLogger } from './log/logger.js';
export { messages } from './log/messages.js';
export type { InstrumentOptions } from './metrics/instrument.js';
export type { MeterLike } from './metrics/meter.js';
export {
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditOptions,
  type AuditRecord,
  type AuditSource,
  type AuditTarget,
} from './model/audit.js';
export type { BatchContext, BatchHandler, BatchOptions, BatchOutcome } from './model/batch.js';
export type { DependencyFailurePolicy, DependencyOutcome } from './model/dependencies.js';
export type { AttemptRecord, HistoryError, HistoryEvent, RunHistory } from './model/history.js';
export type { FrozenRetention, Job, JobError } from './model/job.js';
export type { KeyInfo, KeyLimit, KeysOptions } from './model/keys.js';
export type {
  LimiterInfo,
  LimiterOptions,
  LimiterStatus,
  QueueLimiter,
} from './model/limiter.js';
export {
  type JobLog,
  type JobLogLevel,
  type JobLogLine,
  type JobLogs,
  type JobMetadata,
  NOTE_LIMITS,
  type Progress,
} from './model/notes.js';
export {
  Retention,
  type RetentionPolicy,
  type TtlRetentionPolicy,
  type WindowRetentionPolicy,
} from './model/retention-policy.js';
export type { SchemaInput, SchemaOutput, StandardSchemaV1 } from './model/standard-schema.js';
export type { WorkerRecord, WorkerSettings, WorkerSweepSetting } from './model/worker.js';
export type { JobLineage } from './model/workflow.js';
export { DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE } from './options/batch-size.js';
// The dashboard itself is the `tidemark/dashboard` entry; these name `tm.dashboard()`'s types.
export type { DashboardOptions, RunningDashboard } from './options/dashboard-options.js';
export { MAX_JSON_DEPTH, MAX_PAYLOAD_BYTES } from './options/json.js';
export type { OpenOptions } from './options/open-options.js';
export type { ListKeysOptions } from './queues/key-settings.js';
export type { LimiterStatusOptions } from './queues/limiters.js';
export { type HandleJobOptions, QueueHandle } from './queues/queue-handle.js';
export type {
  BackoffOptions,
  BatchQueueOptions,
  Handler,
  QueueOptions,
  ResolvedQueue,
  SingleQueueOptions,
} from './queues/queue-options.js';
export type { JobId, QueueDataOf, QueueOutputOf, Queues, RegisteredQueue } from './queues/registry-types.js';
export type {
  DefineQueueOptions,
  SignalDeclaration,
  SignalDeclarations,
  TypedJobContext,
  TypedQueueRef,
} from './queues/typed-queue.js';
export type {
  ApplyRetentionOptions,
  ApplyRetentionResult,
} from './retention/apply-retention.js';
export type { ArchivedJob, ArchiveHook } from './retention/archive.js';
export type { HoldJobsOptions, HoldRecord, HoldResult } from './retention/holds.js';
export type { PauseRetentionOptions, RetentionStatus } from './retention/pause.js';
export type { RemoveJobsOptions } from './retention/remove-jobs.js';
export type { SweepBreakdown, SweepOutcome, SweepPreview, SweepRecord } from './retention/sweep-types.js';
export type { ScheduleOptions, ScheduleRecord } from './schedule/schedules.js';
export type {
  CallerTransaction,
  CheckpointRow,
  DatabaseOption,
  JobTokenRow,
  PgliteInstance,
  Queryable,
  SignalRefusal,
  SignalRow,
} from './storage/storage.js';
export { Tidemark } from './tidemark.js';
export { NonRetryableError } from './worker/serialize-error.js';
export type { StopOnSignalsOptions } from './worker/stop-on-signals.js';
export type { Worker } from './worker/worker.js';
export type { SweepOptions, WorkerOptions } from './worker/worker-options.js';
export type {
  JobContext,
  RunChildOptions,
  SignalResult,
  SignalsResult,
} from './workflow/job-context.js';
export { RetryAfter, type RetryAfterOptions } from './workflow/retry-after.js';
export type { SignalDelivery, SignalOptions } from './workflow/signal.js';
export type { CallbackToken, CreateTokenOptions, TokenResult } from './workflow/token-wait.js';
