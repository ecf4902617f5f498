import { announcements } from './messages.js';

/** A structured logger. Pass your own (pino, winston, console wrappers) to `Tidemark.open({ logger })`. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** A logger that adds `fields` to every record. */
  child?(fields: Record<string, unknown>): Logger;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/**
 * A one-line-per-record logger on stderr, printing records at `level` and above, and the
 * info records named in `alsoShow`.
 */
export function consoleLogger(
  level: LogLevel = 'warn',
  base: Record<string, unknown> = {},
  alsoShow: ReadonlySet<string> = NOTHING,
): Logger {
  const write = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level] && !(at === 'info' && alsoShow.has(message))) return;
    const all = { ...base, ...fields };
    const rest = Object.entries(all)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    process.stderr.write(`${at.toUpperCase()} tidemark: ${message}${rest ? ` ${rest}` : ''}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => consoleLogger(level, { ...base, ...fields }, alsoShow),
  };
}

const NOTHING: ReadonlySet<string> = new Set();

/**
 * The logger of an engine opened without one: warnings and errors, plus each worker's
 * retention line, so an application says what it will delete without asking for info logs.
 */
export function defaultLogger(): Logger {
  return consoleLogger('warn', {}, announcements);
}

/** A logger that drops everything. */
export const silentLogger: Logger = consoleLogger('silent');

/** `logger.child(fields)` when the logger has it, else a wrapper that merges the fields. */
export function childLogger(logger: Logger, fields: Record<string, unknown>): Logger {
  if (logger.child) return logger.child(fields);
  const merge = (f?: Record<string, unknown>) => ({ ...fields, ...f });
  return {
    debug: (m, f) => logger.debug(m, merge(f)),
    info: (m, f) => logger.info(m, merge(f)),
    warn: (m, f) => logger.warn(m, merge(f)),
    error: (m, f) => logger.error(m, merge(f)),
  };
}
