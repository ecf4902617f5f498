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
 * A one-line-per-record logger on stderr. The library default is level `warn`, so a
 * library user hears only about things that need attention.
 */
export function consoleLogger(level: LogLevel = 'warn', base: Record<string, unknown> = {}): Logger {
  const write = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
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
    child: (fields) => consoleLogger(level, { ...base, ...fields }),
  };
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
