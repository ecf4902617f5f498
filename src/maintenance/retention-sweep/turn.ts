import type { ResolvedSweep } from '../sweep-option.js';
import { SWEEP_STATEMENT_TIMEOUT_MS, type SweepInputs, turnResult } from '../sweeps.js';
import { sweepRetention } from './sweep.js';

/** The name of the retention sweep's row in the `maintenance` table (last run time and counts). */
export const RETENTION_TURN = 'retention-sweep';

/**
 * A worker's retention tick: sweep when this node wins the interval's turn cluster-wide
 * (advisory lock plus the last-run row), then leave the counts in that row.
 */
export async function retentionTurn(inputs: SweepInputs, sweep: ResolvedSweep): Promise<void> {
  // A little under the interval, so timer drift on the winning node does not skip a turn.
  if (!(await inputs.turns.takeTurn(RETENTION_TURN, sweep.intervalSeconds * 0.9))) return;
  const result = await sweepRetention(inputs, {
    batchSize: sweep.batchSize,
    statementTimeoutMs: SWEEP_STATEMENT_TIMEOUT_MS,
  });
  await inputs.turns.recordTurnResult(RETENTION_TURN, turnResult(result));
}
