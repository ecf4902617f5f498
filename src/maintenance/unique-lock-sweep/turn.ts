import { sweepTurn } from '../sweeps.js';
import { sweepUniqueLocks } from './sweep.js';

/** The name of the unique-lock sweep's row in the `maintenance` table. */
export const UNIQUE_LOCK_TURN = 'unique-lock-sweep';

/** A worker's unique-lock sweep (R8): the expired locks, when this node wins the interval's turn. */
export const uniqueLockTurn = sweepTurn(UNIQUE_LOCK_TURN, sweepUniqueLocks);
