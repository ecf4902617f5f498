import { TidemarkError } from './base.js';

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

/**
 * The schema already holds tables (or functions) under names Tidemark's migrations create,
 * made by another tool or the application. Nothing was written.
 */
export class SchemaConflictError extends TidemarkError {
  readonly schema: string;
  readonly names: string[];
  constructor(schema: string, names: string[]) {
    super(
      'SCHEMA_CONFLICT',
      `schema '${schema}' already holds ${names.join(', ')}, not created by Tidemark: give Tidemark a schema of its own (the default 'tidemark', or schema: '…')`,
      { schema, names },
    );
    this.schema = schema;
    this.names = names;
  }
}

/**
 * PostgreSQL aborted this call's transaction `attempts` times in a row, to break a deadlock
 * (`40P01`) or for a serialization conflict (`40001`) with concurrent work, and it was run
 * again each time. Nothing of the last attempt was written; `cause` is the database's error.
 */
export class DatabaseConflictError extends TidemarkError {
  constructor(sqlState: string, attempts: number, cause?: unknown) {
    super(
      'DATABASE_CONFLICT',
      `the database aborted this call ${attempts} times in a row (${sqlState === '40P01' ? 'deadlock' : 'serialization conflict'} with concurrent work); nothing of the last attempt was written: try again`,
      { sqlState, attempts },
      { cause },
    );
  }
}

/** A transaction handle of `tm.transaction` was used after its callback ended (committed or rolled back). */
export class TransactionClosedError extends TidemarkError {
  constructor() {
    super(
      'TRANSACTION_CLOSED',
      'this transaction has ended (committed or rolled back): use its tx only inside the callback, and await every call made with it',
    );
  }
}

/**
 * The database refused a statement to this role: it lacks the privilege (SQLSTATE `42501`,
 * a role granted SELECT only, say, as a read-only dashboard's) or its session is read-only
 * (`25006`: `default_transaction_read_only`, a hot standby). `action` names what was refused:
 * Tidemark's statement, or `migrate`. Nothing of it was written; `cause` is the database's error.
 */
export class PermissionDeniedError extends TidemarkError {
  readonly action: string;
  readonly sqlState: string;
  constructor(action: string, sqlState: string, cause?: unknown) {
    const reason = cause instanceof Error ? cause.message : 'permission denied';
    super(
      'PERMISSION_DENIED',
      sqlState === '25006'
        ? `the database is read-only for this role and refused '${action}' (${reason}); nothing was written: use a role and a server that accept writes for this`
        : `the database role may not do '${action}' (${reason}); nothing was written: use a role with Tidemark's ${action === 'migrate' ? 'migrator' : 'worker'} grants for this (see docs/deployment.md)`,
      { action, sqlState },
      { cause },
    );
    this.action = action;
    this.sqlState = sqlState;
  }
}
