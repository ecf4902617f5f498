import { MAX_BATCH_SIZE } from '../../options/batch-size.js';
import { wholeNumberOption } from '../whole-number-option.js';

/**
 * `--batch-size N`: a whole number from 1. Larger than the largest batch is passed on, so
 * the engine clamps it with its one warning, as it does for every caller.
 */
export function batchSizeOption(value: string | undefined): number | undefined {
  return wholeNumberOption('--batch-size', value, {
    min: 1,
    says: `from 1 to ${MAX_BATCH_SIZE} (larger values are clamped)`,
  });
}
