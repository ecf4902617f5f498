import { InvalidOptionError } from '../errors.js';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject } from './check.js';

const LOGGER_METHODS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * Check the `Tidemark.open` options that are plain values, before anything is opened: a
 * bad one would otherwise fail later and far from its cause (a logger without `info`
 * throws inside a worker; a pool size of 0 hangs every query).
 */
export function checkOpenScalars(options: Record<string, unknown>): void {
  if (options.logger !== undefined) checkLogger(options.logger, 'logger');
  if (options.poolSize !== undefined) checkInteger(options.poolSize, 'poolSize', 1, 1_000);
  if (options.strictDurability !== undefined) checkBoolean(options.strictDurability, 'strictDurability');
  if (options.migrate !== undefined) checkBoolean(options.migrate, 'migrate');
  if (options.capabilities !== undefined) {
    const capabilities = checkObject(options.capabilities, 'capabilities');
    checkKnownKeys(capabilities, 'capabilities', ['retention']);
    if (capabilities.retention !== undefined) checkBoolean(capabilities.retention, 'capabilities.retention');
  }
}

function checkLogger(value: unknown, field: string): void {
  const logger = checkObject(value, field);
  const missing = LOGGER_METHODS.filter((method) => typeof logger[method] !== 'function');
  if (missing.length > 0 || (logger.child !== undefined && typeof logger.child !== 'function')) {
    throw new InvalidOptionError(
      field,
      'an object with debug, info, warn and error functions (child optional)',
      value,
    );
  }
}
