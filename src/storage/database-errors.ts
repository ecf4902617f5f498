/*
 * What a database error means, read from its SQLSTATE in one place: callers ask these
 * questions and never match codes or message text themselves.
 */

import { codeOf } from '../errors.js';

/** The SQLSTATE of a database error (both drivers put it in `code`), or null. */
export function sqlState(error: unknown): string | null {
  const code = codeOf(error);
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : null;
}

/**
 * The statement was refused for a value it carried: data exceptions (class 22: text jsonb
 * cannot hold, 22P05 for a NUL, 22P02 for a lone surrogate), integrity violations (23) and
 * program limits (54: too large or too deep). Another try of the same rows fails the same way,
 * so a batch that hits one is split to find the row at fault. Anything else (a lost
 * connection, a server shutting down, a timeout) may pass on a later try.
 */
export function isRefusal(error: unknown): boolean {
  const state = sqlState(error);
  return state !== null && ['22', '23', '54'].includes(state.slice(0, 2));
}

/** Node's socket errors, as `code`. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * The database could not be reached or the connection was lost: the statement may not have
 * run at all, and a later try on a new connection may pass. Class 08 (connection exception)
 * and 57P01-57P03 (the server shutting down or starting), socket errors, and node-postgres's
 * own messages for a connection that ended.
 */
export function isConnectionError(error: unknown): boolean {
  const code = codeOf(error);
  // Before the SQLSTATE test: 'EPIPE' has the shape of one.
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  const state = sqlState(error);
  if (state !== null) return state.startsWith('08') || ['57P01', '57P02', '57P03'].includes(state);
  const message = error instanceof Error ? error.message : '';
  return /^Connection terminated|not queryable|timeout exceeded when trying to connect/i.test(message);
}

/** The database cancelled the statement (57014): its statement timeout passed, or it was asked to. */
export function isStatementCancelled(error: unknown): boolean {
  return sqlState(error) === '57014';
}

/**
 * The database refused the statement to this role: no privilege for it (42501,
 * insufficient_privilege) or a read-only session (25006, read_only_sql_transaction).
 */
export function isPermissionDenied(error: unknown): boolean {
  const state = sqlState(error);
  return state === '42501' || state === '25006';
}
