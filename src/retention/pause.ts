import type { EngineCore } from '../engine-core.js';
import { processName } from '../log/process-name.js';
import { checkKnownKeys, checkObject, checkString } from '../options/check.js';

/** What `tm.retentionStatus()` resolves to: the cluster-wide pause switch and the holds. */
export interface RetentionStatus {
  /** While true, no sweep deletes anything and bulk removal is refused, on every node. */
  paused: boolean;
  reason: string | null;
  /** When retention was paused (null when it is not). */
  since: Date | null;
  /** `host:pid` of the process that paused it. */
  pausedBy: string | null;
  /** Retention holds in place (see `tm.listHolds()`). */
  holds: number;
}

/** Options of `tm.pauseRetention`. */
export interface PauseRetentionOptions {
  /** Why: shown in every worker's startup line, the dashboard, the CLI and refusals. */
  reason: string;
}

/**
 * Pause all deletion cluster-wide. Resolves once every deletion that was running has
 * finished; from then on no sweep deletes and bulk removal is refused, until resumed.
 */
export async function pauseRetention(
  core: EngineCore,
  input: PauseRetentionOptions,
): Promise<RetentionStatus> {
  const options = checkObject(input, 'options');
  checkKnownKeys(options, '', ['reason']);
  const reason = checkString(options.reason, 'reason', { max: 500 });
  await core.storage.controls.pause(reason, processName());
  core.logger.warn('retention paused cluster-wide', { reason });
  return core.storage.controls.status();
}

export async function resumeRetention(core: EngineCore): Promise<RetentionStatus> {
  const before = await core.storage.controls.status();
  await core.storage.controls.resume();
  if (before.paused)
    core.logger.warn('retention resumed cluster-wide', { pausedSince: before.since?.toISOString() });
  return core.storage.controls.status();
}

export function retentionStatus(core: EngineCore): Promise<RetentionStatus> {
  return core.storage.controls.status();
}
