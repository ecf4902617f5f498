import type { Logger } from '../../src/index.js';

/** One line a logger was given. */
export interface Said {
  level: string;
  message: string;
  fields?: Record<string, unknown>;
}

/** A logger that appends every line it is given to `said`. */
export function recordingLogger(said: Said[]): Logger {
  const at =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      said.push({ level, message, fields });
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
