import { InvalidOptionError } from '../errors.js';

/** The largest batch any sweep, purge or re-freeze takes: it bounds how long one statement holds its row locks. */
export const MAX_BATCH_SIZE = 10_000;
export const DEFAULT_BATCH_SIZE = 1_000;

/**
 * The one batch-size rule (sweeps, `removeJobs`, `applyRetention`, the CLI): a whole
 * number from 1; above MAX_BATCH_SIZE it is clamped, and `warning` says so (the caller
 * logs it once). Anything else is refused with InvalidOptionError naming `field`.
 */
export function checkBatchSize(value: unknown, field: string): { batchSize: number; warning?: string } {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(
      field,
      `a whole number from 1 to ${MAX_BATCH_SIZE} (larger values are clamped to ${MAX_BATCH_SIZE})`,
      value,
    );
  }
  if (value <= MAX_BATCH_SIZE) return { batchSize: value };
  return {
    batchSize: MAX_BATCH_SIZE,
    warning: `${field} ${value} is above ${MAX_BATCH_SIZE}; clamped to ${MAX_BATCH_SIZE} (batch sizes run from 1 to ${MAX_BATCH_SIZE})`,
  };
}
