import type { EngineCore } from '../engine-core.js';
import type { ResolvedSweep } from '../worker/worker-options.js';
import { sweepRetention, sweepUniqueLocks } from './sweeper.js';

/** Names of the sweeps' rows in the `maintenance` table (last run time and counts). */
export const RETENTION_TURN = 'retention-sweep';
export const UNIQUE_LOCK_TURN = 'unique-lock-sweep';

/**
 * A worker's retention tick: sweep when this node wins the interval's turn cluster-wide
 * (advisory lock plus the last-run row), then leave the counts in that row.
 */
export async function retentionTurn(core: EngineCore, sweep: ResolvedSweep): Promise<void> {
  // A little under the interval, so timer drift on the winning node does not skip a turn.
  if (!(await core.storage.maintenance.takeTurn(RETENTION_TURN, sweep.intervalSeconds * 0.9))) return;
  const result = await sweepRetention(core, { batchSize: sweep.batchSize });
  await core.storage.maintenance.recordTurnResult(RETENTION_TURN, turnResult(result));
}

/** A worker's unique-lock tick: the same turn-taking, for expired unique locks (R8). */
export async function uniqueLockTurn(core: EngineCore, sweep: ResolvedSweep): Promise<void> {
  if (!(await core.storage.maintenance.takeTurn(UNIQUE_LOCK_TURN, sweep.intervalSeconds * 0.9))) return;
  const result = await sweepUniqueLocks(core, sweep.batchSize);
  await core.storage.maintenance.recordTurnResult(UNIQUE_LOCK_TURN, turnResult(result));
}

function turnResult(result: Awaited<ReturnType<typeof sweepRetention>>) {
  return {
    jobs: result.jobs,
    signals: result.signals,
    uniqueLocks: result.uniqueLocks,
    durationMs: Math.round(result.durationMs),
    error: result.error ?? null,
    paused: result.paused === true,
  };
}
