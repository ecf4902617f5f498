import type { Logger, LogLevel } from '../log/logger.js';
import type { CliIo } from './cli-io.js';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** The console logger's format, written to the command's stderr (captured under test). */
export function ioLogger(io: CliIo, level: LogLevel = 'warn', base: Record<string, unknown> = {}): Logger {
  const write = (at: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (ORDER[at] < ORDER[level]) return;
    const rest = Object.entries({ ...base, ...fields })
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' ');
    io.stderr.write(`${at.toUpperCase()} tidemark: ${message}${rest ? ` ${rest}` : ''}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => ioLogger(io, level, { ...base, ...fields }),
  };
}
