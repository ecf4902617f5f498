/**
 * Every error Tidemark throws on purpose is a `TidemarkError` with a stable `code`.
 * Match on the class or on `code`, never on the message text.
 */
export class TidemarkError extends Error {
  /** Stable machine-readable code, e.g. `'JOB_NOT_FOUND'`. */
  readonly code: string;
  /** Structured details about what went wrong. */
  readonly details: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

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

/** The storage has no retention capability, so it cannot sweep or purge. */
export class RetentionUnsupportedError extends TidemarkError {
  constructor(operation: string) {
    super('RETENTION_UNSUPPORTED', `${operation} needs the storage's retention capability, which it lacks`, {
      operation,
    });
  }
}

export class JobNotFoundError extends TidemarkError {
  readonly jobId: string;
  constructor(jobId: string) {
    super('JOB_NOT_FOUND', `job ${jobId} not found`, { jobId });
    this.jobId = jobId;
  }
}

export class QueueNotFoundError extends TidemarkError {
  readonly queue: string;
  constructor(queue: string) {
    super('QUEUE_NOT_FOUND', `queue '${queue}' does not exist: create it with tm.createQueue first`, {
      queue,
    });
    this.queue = queue;
  }
}

/** The operation needs a finished job (or a job in another state) and the job is not in it. */
export class InvalidJobStateError extends TidemarkError {
  readonly jobId: string;
  readonly status: string;
  constructor(jobId: string, status: string, wanted: string) {
    super('INVALID_JOB_STATE', `job ${jobId} is ${status}; ${wanted}`, { jobId, status });
    this.jobId = jobId;
    this.status = status;
  }
}

/** Deleting a job that is still in flight is refused: cancel it first. */
export class JobInFlightError extends InvalidJobStateError {
  constructor(jobId: string, status: string) {
    super(jobId, status, 'in-flight jobs are never deleted: cancel it first');
    (this as { code: string }).code = 'JOB_IN_FLIGHT';
  }
}

/**
 * Deleting a finished job is refused while an ancestor of it is in flight: the ancestor's
 * replay would create the deleted child again and run its handler twice. `jobId` is the
 * job asked for; `ancestorId` and `status` name the ancestor in flight.
 */
export class AncestorInFlightError extends JobInFlightError {
  readonly ancestorId: string;
  constructor(jobId: string, ancestorId: string, ancestorStatus: string) {
    super(jobId, ancestorStatus);
    (this as { code: string }).code = 'ANCESTOR_IN_FLIGHT';
    this.message = `job ${jobId} cannot be deleted while its ancestor ${ancestorId} is ${ancestorStatus}: the ancestor's replay would create it again; cancel or finish job ${ancestorId} first`;
    Object.assign(this.details, { ancestorId, ancestorStatus });
    this.ancestorId = ancestorId;
  }
}

/**
 * A job below the top of a workflow tree cannot be deleted on its own, even when the whole
 * tree has finished: a retry of the workflow would replay it and create the job again, so
 * its work would run twice. Delete the tree from its top.
 */
export class PartOfWorkflowError extends TidemarkError {
  readonly jobId: string;
  readonly topId: string;
  constructor(jobId: string, topId: string) {
    super(
      'PART_OF_WORKFLOW',
      `job ${jobId} belongs to the workflow tree of job ${topId}: a retry of job ${topId} would create it again, so the tree goes whole; delete it with deleteWorkflowSubtree('${topId}')`,
      { jobId, topId },
    );
    this.jobId = jobId;
    this.topId = topId;
  }
}

/** A hold keeps this job's tree: release the hold first. */
export class JobHeldError extends TidemarkError {
  readonly jobId: string;
  readonly holdId: string;
  constructor(jobId: string, holdId: string, reason: string) {
    super(
      'JOB_HELD',
      `job ${jobId} is kept by retention hold ${holdId} (${reason}): release the hold with tm.releaseHold('${holdId}') first`,
      { jobId, holdId, reason },
    );
    this.jobId = jobId;
    this.holdId = holdId;
  }
}

/**
 * `retryJob` of a `unique` job whose key another in-flight job took meanwhile: two jobs in
 * flight with one key would break the promise of `unique`, so nothing is reopened.
 * `holderId` is the job holding the key (null when it finished as the error was built).
 */
export class UniqueKeyConflictError extends TidemarkError {
  readonly jobId: string;
  readonly uniqueKey: string;
  readonly holderId: string | null;
  constructor(jobId: string, queue: string, uniqueKey: string, holderId: string | null, cause?: unknown) {
    super(
      'UNIQUE_KEY_CONFLICT',
      `job ${jobId} cannot run again: its unique key '${uniqueKey}' on queue '${queue}' is held by ${holderId === null ? 'another in-flight job' : `job ${holderId}`}, in flight; retry it once that job has finished`,
      { jobId, queue, uniqueKey, holderId },
      { cause },
    );
    this.jobId = jobId;
    this.uniqueKey = uniqueKey;
    this.holderId = holderId;
  }
}

/** No retention hold has this id (it was released, or never existed). */
export class HoldNotFoundError extends TidemarkError {
  readonly holdId: string;
  constructor(holdId: string) {
    super('HOLD_NOT_FOUND', `retention hold ${holdId} not found`, { holdId });
    this.holdId = holdId;
  }
}

/**
 * Retention is paused cluster-wide (`tm.pauseRetention`), so a bulk removal is refused.
 * `details.deleted` counts what a removal had deleted before the pause stopped it.
 */
export class RetentionPausedError extends TidemarkError {
  readonly reason: string | null;
  readonly since: Date | null;
  constructor(reason: string | null, since: Date | null, deleted = 0) {
    super(
      'RETENTION_PAUSED',
      `retention is paused${reason ? ` (${reason})` : ''}${since ? ` since ${since.toISOString()}` : ''}: nothing is removed in bulk until it is resumed (tm.resumeRetention(), or tidemark retention resume)${deleted > 0 ? `; ${deleted} jobs were deleted before the pause` : ''}`,
      { reason, since, deleted },
    );
    this.reason = reason;
    this.since = since;
  }
}

/** `deleteJob` refuses a job that has children; use `deleteWorkflowSubtree`. */
export class JobHasChildrenError extends TidemarkError {
  readonly jobId: string;
  constructor(jobId: string) {
    super('JOB_HAS_CHILDREN', `job ${jobId} has child jobs: use deleteWorkflowSubtree`, { jobId });
    this.jobId = jobId;
  }
}

/** The queue does not declare a signal of this name. */
export class UnknownSignalError extends TidemarkError {
  constructor(queue: string, signal: string) {
    super('UNKNOWN_SIGNAL', `queue '${queue}' does not declare signal '${signal}'`, { queue, signal });
  }
}

/** The database schema was migrated by a newer Tidemark than this one. */
export class SchemaTooNewError extends TidemarkError {
  constructor(schema: string, databaseVersion: number, codeVersion: number) {
    super(
      'SCHEMA_TOO_NEW',
      `schema '${schema}' is at migration ${databaseVersion} but this Tidemark knows only up to ${codeVersion}: upgrade Tidemark`,
      { schema, databaseVersion, codeVersion },
    );
  }
}

/**
 * Opened with `migrate: false` where no Tidemark schema of that name exists, or one behind this
 * version's migrations. Nothing was created; run `tidemark migrate` (or open with migrations on).
 */
export class SchemaNotFoundError extends TidemarkError {
  readonly schema: string;
  constructor(schema: string, databaseVersion: number, codeVersion: number) {
    super(
      'SCHEMA_NOT_FOUND',
      databaseVersion === 0
        ? `no Tidemark schema '${schema}' here: check the database and --schema, or create it with 'tidemark migrate'`
        : `schema '${schema}' is at migration ${databaseVersion} but this Tidemark needs ${codeVersion}: run 'tidemark migrate'`,
      { schema, databaseVersion, codeVersion },
    );
    this.schema = schema;
  }
}

/** The engine or its driver was closed. */
export class DriverClosedError extends TidemarkError {
  constructor() {
    super('CLOSED', 'Tidemark is closed');
  }
}

/**
 * The embedded database folder is already open: in another process (`pid` from its owner file,
 * `null` when that is unknown), or in this one under the same or another path.
 */
export class DatabaseLockedError extends TidemarkError {
  constructor(path: string, pid: number | null) {
    const sameProcess = pid === process.pid;
    super(
      'DATABASE_LOCKED',
      sameProcess
        ? `embedded database '${path}' is already open in this process (perhaps under another path); close it first or share that Tidemark: one owner per folder`
        : `embedded database '${path}' is in use by ${pid === null ? 'another process' : `process ${pid}`}; one process owns a folder`,
      { path, pid, sameProcess },
    );
  }
}

/** The embedded database folder cannot be created or written. `osCode` is the system's error code. */
export class DatabaseFolderError extends TidemarkError {
  constructor(path: string, osCode: string, cause?: unknown) {
    super(
      'DATABASE_FOLDER_UNUSABLE',
      `embedded database folder '${path}' cannot be used (${osCode}): ${folderHint(osCode)}`,
      { path, osCode },
      { cause },
    );
  }
}

function folderHint(osCode: string): string {
  switch (osCode) {
    case 'EACCES':
    case 'EPERM':
      return 'this process may not write there; make the folder writable by its user, or choose another folder';
    case 'EROFS':
      return 'the file system is read-only; choose a folder on a writable one';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'part of the path is a file, not a folder; choose another path';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'the disk or quota is full; free space or choose another folder';
    default:
      return 'check that this process can create and write the folder, or choose another one';
  }
}

/**
 * The disk under an embedded database is full (or its quota is used up). `stage` says what that
 * cost. `'call'`: this call was not done; the database goes on, and calls pass again once there
 * is space. `'stopped'`: the database could not write its log and has stopped; every call is
 * refused until this Tidemark is closed and the folder opened again, with space freed. `'open'`:
 * the folder could not be opened (opening writes to the log). Acknowledged work is kept.
 */
export class DatabaseFullError extends TidemarkError {
  readonly path: string;
  readonly stage: 'call' | 'stopped' | 'open';
  constructor(path: string, stage: 'call' | 'stopped' | 'open', cause?: unknown) {
    const full = `the disk of embedded database '${path}' is full`;
    super(
      'DATABASE_FULL',
      stage === 'call'
        ? `${full}: this call was not done; free space on that disk and try again`
        : stage === 'stopped'
          ? `${full}: the database could not write its log and has stopped; free space on that disk, then close this Tidemark and open the folder again (acknowledged work is kept)`
          : `${full}: the folder cannot be opened until its log has room; free space on that disk and open it again`,
      { path, stage },
      { cause },
    );
    this.path = path;
    this.stage = stage;
  }
}

/** The driver was used directly inside one of its own transactions (this would deadlock PGlite). */
export class TransactionMisuseError extends TidemarkError {
  constructor() {
    super(
      'TRANSACTION_MISUSE',
      'the database was called outside the open transaction; use the transaction handle passed to your callback',
    );
  }
}

/** A handler ran longer than its queue's `timeoutSeconds`. */
export class JobTimeoutError extends TidemarkError {
  constructor(seconds: number) {
    super('JOB_TIMEOUT', `handler timed out after ${seconds}s`, { seconds });
  }
}

/**
 * The database refused to store an attempt's outcome (a value it cannot hold). The attempt is
 * failed with this error instead, and the queue's retry policy applies; the jobs finished in
 * the same batch are written as usual.
 */
export class OutcomeRefusedError extends TidemarkError {
  constructor(jobId: string, what: 'output' | 'error', cause: unknown) {
    const sqlState = (cause as { code?: unknown } | null)?.code;
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      'OUTCOME_REFUSED',
      `the database refused to store the ${what} of job ${jobId}'s attempt (${typeof sqlState === 'string' ? `${sqlState}: ` : ''}${reason}); the attempt failed instead`,
      { jobId, what, sqlState: typeof sqlState === 'string' ? sqlState : null },
      { cause },
    );
  }
}

/** A workflow used the same step name twice in one run. */
export class DuplicateStepError extends TidemarkError {
  constructor(name: string) {
    super('DUPLICATE_STEP', `step name '${name}' is used twice in this run; step names must be unique`, {
      name,
    });
  }
}

/** A child job failed or was cancelled; thrown from `ctx.runChild`. Its message carries the child's error. */
export class ChildJobFailedError extends TidemarkError {
  readonly childId: string;
  readonly queue: string | undefined;
  readonly status: string;
  constructor(childId: string, status: string, error: unknown, queue?: string) {
    const where = queue === undefined ? `child job ${childId}` : `child job ${childId} (queue '${queue}')`;
    super('CHILD_JOB_FAILED', `${where} ended ${status}${errorSuffix(error)}`, {
      childId,
      queue,
      status,
      error,
    });
    this.childId = childId;
    this.queue = queue;
    this.status = status;
  }
}

/**
 * `result(id)` was awaited on a job that ended failed, cancelled or expired. The message carries
 * the job's last error; `details.error` holds it whole (`{ name, message, stack }`).
 */
export class JobFailedError extends TidemarkError {
  readonly jobId: string;
  readonly status: string;
  constructor(jobId: string, status: string, error: unknown) {
    super('JOB_FAILED', `job ${jobId} ended ${status}${errorSuffix(error)}`, { jobId, status, error });
    this.jobId = jobId;
    this.status = status;
  }
}

/** `result(id, { timeoutSeconds })` gave up before the job finished. The job itself goes on. */
export class ResultTimeoutError extends TidemarkError {
  readonly jobId: string;
  readonly status: string;
  constructor(jobId: string, status: string, seconds: number) {
    super(
      'RESULT_TIMEOUT',
      `job ${jobId} did not finish within ${seconds}s (it is ${status}); the job itself goes on`,
      { jobId, status, seconds },
    );
    this.jobId = jobId;
    this.status = status;
  }
}

/** A schedule of that name does not exist. */
export class ScheduleNotFoundError extends TidemarkError {
  constructor(name: string) {
    super('SCHEDULE_NOT_FOUND', `schedule '${name}' not found`, { name });
  }
}

/** The dashboard was asked to listen beyond this machine without a token. */
export class InsecureDashboardError extends TidemarkError {
  constructor(host: string) {
    super(
      'INSECURE_DASHBOARD',
      `the dashboard will not listen on '${host}' without a token: pass { token } (16+ characters) or bind to 127.0.0.1`,
      { host },
    );
  }
}

/** `: <name>: <message>` of a stored job error, or '' when there is none. */
function errorSuffix(error: unknown): string {
  if (error === null || error === undefined) return '';
  if (typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') {
    const { name, message } = error as { name?: unknown; message: string };
    const label = typeof name === 'string' && name !== '' && name !== 'Error' ? `${name}: ` : '';
    return `: ${label}${message}`;
  }
  return `: ${describe(error)}`;
}

function describe(value: unknown): string {
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
