import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError } from '../errors.js';
import { latestDueFire } from './cron.js';

/**
 * Enqueue every due schedule fire. Each fire is a `schedule_fires` row unique by
 * (schedule, fire time), so several nodes ticking at once create one job per fire.
 * Returns the number of jobs created here.
 */
export async function fireDueSchedules(core: EngineCore): Promise<number> {
  const { storage } = core;
  const schedules = await storage.schedules.listSchedules();
  let created = 0;
  for (const schedule of schedules) {
    const { name, now } = schedule;
    const after = schedule.lastFireAt ?? now;
    const fireAt = latestDueFire(schedule.cron, schedule.timezone, after, now);
    if (!fireAt) continue;
    const { queue } = schedule;
    let options: Awaited<ReturnType<typeof core.registry.insertOptions>>;
    try {
      options = await core.registry.insertOptions(queue, core.engineRetention);
    } catch (error) {
      if (!(error instanceof QueueNotFoundError)) throw error;
      core.logger.warn('schedule names a queue that does not exist; fire skipped', {
        schedule: name,
        queue: error.queue,
      });
      continue;
    }
    const id = await storage.schedules.recordFire(
      {
        name,
        fireAt,
        queue,
        data: JSON.stringify(schedule.data ?? null),
        maxAttempts: options.maxAttempts,
        retention: options.retention,
      },
      core.insertDefaults,
    );
    if (id) created++;
  }
  return created;
}
