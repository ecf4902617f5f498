import type { EngineCore } from '../engine-core.js';
import { processName } from '../log/process-name.js';
import { text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { AUDIT_FIELDS } from '../options/shared-fields.js';

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

/** `tm.pauseRetention`'s options, declared once. */
export const pauseOptions = new OptionSet(
  'options',
  {
    reason: text(500, {
      description: "why: shown in every worker's startup line, the dashboard, the CLI and refusals",
    }),
    ...AUDIT_FIELDS,
  },
  ['reason'],
);

/** Options of `tm.pauseRetention`. */
export type PauseRetentionOptions = OptionsOf<typeof pauseOptions.properties, 'reason'>;

/**
 * Pause all deletion cluster-wide. Resolves once every deletion that was running has
 * finished; from then on no sweep deletes and bulk removal is refused, until resumed.
 */
export async function pauseRetention(
  core: EngineCore,
  input: PauseRetentionOptions,
): Promise<RetentionStatus> {
  const { reason } = pauseOptions.read(input);
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
