import { MAX_BATCH_SIZE } from '../../options/batch-size.js';
import { UsageError } from '../cli-io.js';

/**
 * `--batch-size N`: a whole number from 1. Larger than the largest batch is passed on, so
 * the engine clamps it with its one warning, as it does for every caller.
 */
export function batchSizeOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 1) {
    throw new UsageError(
      `--batch-size must be a whole number from 1 to ${MAX_BATCH_SIZE} (larger values are clamped), got '${value}'`,
    );
  }
  return n;
}
