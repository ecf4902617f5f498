import { sweepTurn } from '../sweeps.js';
import { sweepRetention } from './sweep.js';

/** The name of the retention sweep's row in the `maintenance` table (last run time and counts). */
export const RETENTION_TURN = 'retention-sweep';

/** A worker's retention sweep: one full pass when this node wins the interval's turn. */
export const retentionTurn = sweepTurn(RETENTION_TURN, sweepRetention);
