import { type ErrorCode, TidemarkError } from '../errors.js';

/**
 * The HTTP status of every error code. A record over ErrorCode, so a code added to ERROR_CODES
 * does not compile until it has its status here: no refusal falls to a default unseen.
 */
const STATUS_OF_CODE: Record<ErrorCode, number> = {
  // What the request names does not exist.
  JOB_NOT_FOUND: 404,
  QUEUE_NOT_FOUND: 404,
  HOLD_NOT_FOUND: 404,
  SCHEDULE_NOT_FOUND: 404,
  LIMITER_NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  // A callback token that expired or was cancelled: it will never be usable again.
  TOKEN_CLOSED: 410,
  // The request itself is wrong (INVALID_RETENTION_POLICY is a kind of INVALID_OPTION).
  INVALID_OPTION: 400,
  INVALID_RETENTION_POLICY: 400,
  JOB_VALIDATION: 400,
  TOKEN_PAYLOAD: 400,
  // The database role may not do this (a read-only dashboard's role asked to write).
  PERMISSION_DENIED: 403,
  // The engine is closed or its folder is taken: the server is up but cannot serve now.
  CLOSED: 503,
  DATABASE_LOCKED: 503,
  // The rest refuse in the state things are in: a job, a queue, a hold, retention or the database.
  ANCESTOR_IN_FLIGHT: 409,
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
  BATCH_KEY: 409,
  BATCH_OUTCOME: 409,
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

/** What a refusal whose code is in no list gets (a code forced past the type): a conflict. */
const UNLISTED_STATUS = 409;

/**
 * The HTTP status of an error the engine threw on purpose, read from its `code`: the server
 * shows its message instead of a 500. Anything that is not a TidemarkError is no refusal but a
 * failure, and gets undefined: the server answers it as its own error (500).
 */
export function statusOfError(error: TidemarkError): number;
export function statusOfError(error: unknown): number | undefined;
export function statusOfError(error: unknown): number | undefined {
  if (!(error instanceof TidemarkError)) return undefined;
  return Object.hasOwn(STATUS_OF_CODE, error.code) ? STATUS_OF_CODE[error.code] : UNLISTED_STATUS;
}
