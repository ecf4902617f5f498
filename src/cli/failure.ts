import { codeOf } from '../errors.js';

/**
 * One line, with a hint, for the failures a user meets before any job is touched: a server
 * that does not answer, a database or role that does not exist, a refused password. Anything
 * else is not recognised (null) and keeps its stack, since it is a bug to report.
 */
export function describeConnectionFailure(error: unknown, database: string): string | null {
  const code = codeOf(error);
  const where = redactUrl(database);
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot connect to ${where}: connection refused. Is PostgreSQL running there? Pass --database or set TIDEMARK_DATABASE_URL`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to ${where}: host not found. Check the host name in --database`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot connect to ${where}: the host does not answer (${code}). Check the address and the firewall`;
    case '3D000':
      return `${message(error)} at ${where}: create it, or name another in --database`;
    case '28000':
    case '28P01':
      return `${message(error)} at ${where}: check the user and password in --database`;
    case '57P03':
      return `${where} is starting up or shutting down: try again in a moment`;
    default:
      return null;
  }
}

/** A postgres:// URL without its password, for messages and logs. */
export function redactUrl(database: string): string {
  try {
    const url = new URL(database);
    if (!/^postgres(ql)?:$/.test(url.protocol)) return database;
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return database;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
