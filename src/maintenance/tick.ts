import type { EngineCore } from '../engine-core.js';
import { fireDueSchedules } from '../schedule/fire-schedules.js';

const BATCH = 1_000;

/** A worker gone (no beat for three intervals) keeps its row this long, for the dashboard to show. */
export const GONE_WORKER_KEEP_SECONDS = 3_600;

/** At most this many rows of gone workers are kept (the newest), however many die at once. */
export const GONE_WORKER_MAX_ROWS = 1_000;

/**
 * One maintenance tick, run by one node per interval across the cluster: recover stalled
 * jobs, expire overdue ones, promote due retries, fire due schedules, nudge queues whose
 * delayed work became due, and delete the rows of workers gone for an hour (and of gone
 * workers beyond the newest GONE_WORKER_MAX_ROWS).
 */
export async function runTick(core: EngineCore, intervalSeconds: number): Promise<void> {
  // A little under the interval, so timer drift on the winning node does not skip a tick.
  if (!(await core.storage.takeTurn('tick', intervalSeconds * 0.8))) return;
  const counts = await tickOnce(core, intervalSeconds);
  core.events.emit('maintenance:tick', counts);
  if (counts.stalled + counts.expired > 0) core.logger.debug('maintenance tick', { ...counts });
}

/** The work of a tick, without the cluster turn (also used by tests and the CLI). */
export async function tickOnce(core: EngineCore, intervalSeconds = 5) {
  const { storage } = core;
  const stalled = await drain(() => storage.recoverStalled(BATCH));
  const expired = await drain(() => storage.expireJobs(BATCH));
  const promoted = await drain(() => storage.promoteRetries(BATCH));
  const scheduled = await fireDueSchedules(core);
  await storage.nudgeDueQueues(intervalSeconds * 2);
  // One bounded batch per tick: a thousand workers killed at once go within a few ticks.
  await storage.deleteGoneWorkers(GONE_WORKER_KEEP_SECONDS, BATCH);
  await storage.trimGoneWorkers(GONE_WORKER_MAX_ROWS, BATCH);
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
