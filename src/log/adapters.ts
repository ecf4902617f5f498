import type { Logger } from './logger.js';

/*
 * Loggers whose calling convention is not Tidemark's `(message, fields)`. pino takes
 * `(fields, message)`: given Tidemark's order it prints the message and drops every field (the
 * object is read as values for printf-style placeholders the message does not have).
 */

/** The part of a pino logger Tidemark calls. */
export interface PinoLike {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
  child(bindings: Record<string, unknown>): PinoLike;
}

/** The part of a winston logger Tidemark calls: `(message, meta)`, which winston merges. */
export interface WinstonLike {
  debug(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  error(message: string, meta?: Record<string, unknown>): unknown;
  child(meta: Record<string, unknown>): WinstonLike;
}

/** A pino logger as a Tidemark Logger: every field reaches pino's record; `child` is pino's. */
export function fromPino(pino: PinoLike): Logger {
  return {
    debug: (message, fields) => pino.debug(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    error: (message, fields) => pino.error(fields ?? {}, message),
    child: (fields) => fromPino(pino.child(fields)),
  };
}

/**
 * A winston logger as a Tidemark Logger. Winston already takes `(message, meta)`; this keeps
 * its `child` and drops what its methods return (the logger itself, for chaining).
 */
export function fromWinston(winston: WinstonLike): Logger {
  return {
    debug: (message, fields) => void winston.debug(message, fields ?? {}),
    info: (message, fields) => void winston.info(message, fields ?? {}),
    warn: (message, fields) => void winston.warn(message, fields ?? {}),
    error: (message, fields) => void winston.error(message, fields ?? {}),
    child: (fields) => fromWinston(winston.child(fields)),
  };
}

/**
 * Whether a logger is a pino instance, which Tidemark then calls through `fromPino`: pino's own
 * `bindings()` and `levels.values` (its level table), which no `(message, fields)` logger has.
 */
export function isPino(logger: object): logger is PinoLike {
  const levels = Reflect.get(logger, 'levels');
  return (
    typeof Reflect.get(logger, 'bindings') === 'function' &&
    typeof levels === 'object' &&
    levels !== null &&
    typeof Reflect.get(levels, 'values') === 'object'
  );
}
