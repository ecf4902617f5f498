import type { Logger } from '../../../src/index.js';

export interface LogRecord {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every record, for tests that assert on log lines. */
export function captureLogger(): {
  logger: Logger;
  records: LogRecord[];
  lines(message: string): LogRecord[];
} {
  const records: LogRecord[] = [];
  const at =
    (level: LogRecord['level']) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      records.push({ level, message, fields });
    };
  return {
    logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    records,
    lines: (message) => records.filter((r) => r.message === message),
  };
}
