import type { ResolvedSweep } from '../sweep-option.js';
import { SWEEP_STATEMENT_TIMEOUT_MS, type SweepInputs, turnResult } from '../sweeps.js';
import { sweepUniqueLocks } from './sweep.js';

/** The name of the unique-lock sweep's row in the `maintenance` table. */
export const UNIQUE_LOCK_TURN = 'unique-lock-sweep';

/** A worker's unique-lock tick: the retention sweep's turn-taking, for expired unique locks (R8). */
export async function uniqueLockTurn(inputs: SweepInputs, sweep: ResolvedSweep): Promise<void> {
  if (!(await inputs.turns.takeTurn(UNIQUE_LOCK_TURN, sweep.intervalSeconds * 0.9))) return;
  const result = await sweepUniqueLocks(inputs, {
    batchSize: sweep.batchSize,
    statementTimeoutMs: SWEEP_STATEMENT_TIMEOUT_MS,
  });
  await inputs.turns.recordTurnResult(UNIQUE_LOCK_TURN, turnResult(result));
}
