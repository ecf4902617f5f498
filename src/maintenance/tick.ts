import type { EngineCore } from '../engine-core.js';
import { fireDueSchedules } from '../schedule/fire-schedules.js';

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
  core: EngineCore,
  intervalSeconds: number,
  hooks: TickHooks = {},
): Promise<void> {
  try {
    // A little under the interval, so timer drift on the winning node does not skip a tick.
    const turn = await core.storage.maintenance.takeTurn('tick', intervalSeconds * 0.8);
    hooks.answered?.();
    if (!turn) return;
    const recover = hooks.beforeRecovery ? await hooks.beforeRecovery() : true;
    const counts = await tickOnce(core, intervalSeconds, recover);
    core.events.emit('maintenance:tick', counts);
    if (counts.stalled + counts.expired > 0) core.logger.debug('maintenance tick', { ...counts });
  } catch (error) {
    hooks.failed?.(error);
    throw error;
  }
}

/** The work of a tick, without the cluster turn (also used by tests and the CLI). */
export async function tickOnce(core: EngineCore, intervalSeconds = 5, recover = true) {
  const { storage } = core;
  const stalled = recover ? await drain(() => storage.maintenance.recoverStalled(BATCH)) : 0;
  const expired = await drain(() => storage.maintenance.expireJobs(BATCH));
  const promoted = await drain(() => storage.maintenance.promoteRetries(BATCH));
  const scheduled = await fireDueSchedules(core);
  await storage.maintenance.nudgeDueQueues(intervalSeconds * 2);
  // One bounded batch per tick: a thousand workers killed at once go within a few ticks.
  await storage.workers.deleteGoneWorkers(GONE_WORKER_KEEP_SECONDS, BATCH);
  await storage.workers.trimGoneWorkers(GONE_WORKER_MAX_ROWS, BATCH);
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
