import { sweepOption } from '../sweep-option.js';

/** `tm.worker({ uniqueLockSweep })`: the sweep of expired unique locks on this worker, or `false`. */
export const uniqueLockSweepOption = sweepOption(
  'the sweep of expired unique locks (from `idempotencyKey` and `uniqueFor`); runs even when retention is off',
  'the same',
);
