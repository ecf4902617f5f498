import { codeOf } from '../../errors.js';
import { propertyOf } from '../../model/guards.js';

/** SQLSTATE disk_full: PostgreSQL's code for a write the disk (or a quota) refused. */
const DISK_FULL = '53100';

/** The system's words for ENOSPC and EDQUOT, as PostgreSQL quotes them in its messages. */
const NO_SPACE = /No space left on device|Disk quota exceeded/;

/** The disk (or a quota) refused a write: PostgreSQL's disk_full, or the system's own code or words. */
export function isOutOfSpace(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = codeOf(error);
  const message = propertyOf(error, 'message');
  if (code === DISK_FULL || code === 'ENOSPC' || code === 'EDQUOT') return true;
  return typeof message === 'string' && NO_SPACE.test(message);
}

/**
 * The backend gave up (PANIC, FATAL) rather than failing one statement (ERROR). PGlite keeps
 * the instance open after that, but the backend is left holding what it held when it gave up,
 * and a later statement spins inside it forever (measured: a PANIC while creating a log
 * segment on a full disk).
 */
export function endsBackend(error: unknown): boolean {
  const severity = propertyOf(error, 'severity');
  return severity === 'PANIC' || severity === 'FATAL';
}

/**
 * Whether an embedded database stopped for lack of space, and on what. Fed PGlite's server log
 * as well as the errors of calls: the PANIC line is printed while the statement that hit it
 * still runs, before PGlite sends the statements of its own that follow (a Sync, a ROLLBACK).
 */
export class OutOfSpaceStop {
  /** The error or log line that stopped it; undefined while it runs. */
  cause: unknown = undefined;

  get stopped(): boolean {
    return this.cause !== undefined;
  }

  /** For PGlite's `onStderr`: one line of the server log. */
  readonly watchLog = (line: string): boolean => {
    if (this.cause === undefined && /\b(PANIC|FATAL):/.test(line) && NO_SPACE.test(line)) {
      this.cause = new Error(line.trim());
    }
    return false;
  };

  /** Records `error` when it stops the database; true when the database is stopped. */
  noteError(error: unknown): boolean {
    if (this.cause === undefined && isOutOfSpace(error) && endsBackend(error)) this.cause = error;
    return this.stopped;
  }
}
