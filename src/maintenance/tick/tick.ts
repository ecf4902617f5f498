import type { EngineCore } from '../../engine-core.js';
import type { TypedEmitter } from '../../events.js';
import type { Logger } from '../../log/logger.js';
import { fireDueSchedules } from '../../schedule/fire-schedules.js';
import type { Storage } from '../../storage/storage.js';

/** What the tick works with, and nothing else. */
export interface TickInputs {
  maintenance: Storage['maintenance'];
  workers: Storage['workers'];
  /** Add the jobs of every due schedule fire; how many were added here. */
  fireSchedules: () => Promise<number>;
  events: TypedEmitter;
  logger: Logger;
}

/** The tick's inputs from the engine's parts. */
export function tickInputs(core: EngineCore): TickInputs {
  return {
    maintenance: core.storage.maintenance,
    workers: core.storage.workers,
    fireSchedules: () => fireDueSchedules(core),
    events: core.events,
    logger: core.logger,
  };
}

const BATCH = 1_000;

/** A worker gone (no beat for three intervals) keeps its row this long, for the dashboard to show. */
export const GONE_WORKER_KEEP_SECONDS = 3_600;

/** At most this many rows of gone workers are kept (the newest), however many die at once. */
export const GONE_WORKER_MAX_ROWS = 1_000;

/** What a worker's tick does around stalled recovery (see Worker). */
export interface TickHooks {
  /** The database answered the tick (its turn taken or not). */
  answered?: () => void;
  /** The tick failed with `error` (the database may be unreachable). */
  failed?: (error: unknown) => void;
  /**
   * Runs once the turn is won, before stalled recovery: false skips recovery this tick (the
   * database has only just answered again, or the worker's own held outcomes and lock
   * extensions have not landed yet).
   */
  beforeRecovery?: () => Promise<boolean>;
}

/**
 * One maintenance tick, run by one node per interval across the cluster: recover stalled
 * jobs, expire overdue ones, promote due retries, fire due schedules, nudge queues whose
 * delayed work became due, and delete the rows of workers gone for an hour (and of gone
 * workers beyond the newest GONE_WORKER_MAX_ROWS).
 */
export async function runTick(
  inputs: TickInputs,
  intervalSeconds: number,
  hooks: TickHooks = {},
): Promise<void> {
  try {
    // A little under the interval, so timer drift on the winning node does not skip a tick.
    const turn = await inputs.maintenance.takeTurn('tick', intervalSeconds * 0.8);
    hooks.answered?.();
    if (!turn) return;
    const recover = hooks.beforeRecovery ? await hooks.beforeRecovery() : true;
    const counts = await tickOnce(inputs, intervalSeconds, recover);
    inputs.events.emit('maintenance:tick', counts);
    if (counts.stalled + counts.expired > 0) inputs.logger.debug('maintenance tick', { ...counts });
  } catch (error) {
    hooks.failed?.(error);
    throw error;
  }
}

/** The work of a tick, without the cluster turn (also used by tests and the CLI). */
export async function tickOnce(inputs: TickInputs, intervalSeconds = 5, recover = true) {
  const { maintenance, workers } = inputs;
  const stalled = recover ? await drain(() => maintenance.recoverStalled(BATCH)) : 0;
  const expired = await drain(() => maintenance.expireJobs(BATCH));
  const promoted = await drain(() => maintenance.promoteRetries(BATCH));
  const scheduled = await inputs.fireSchedules();
  await maintenance.nudgeDueQueues(intervalSeconds * 2);
  // One bounded batch per tick: a thousand workers killed at once go within a few ticks.
  await workers.deleteGoneWorkers(GONE_WORKER_KEEP_SECONDS, BATCH);
  await workers.trimGoneWorkers(GONE_WORKER_MAX_ROWS, BATCH);
  return { stalled, expired, promoted, scheduled };
}

async function drain(step: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < 100; i++) {
    const n = await step();
    total += n;
    if (n < BATCH) break;
  }
  return total;
}
