import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError } from '../errors.js';
import { fireSchedule } from '../intake/fire-schedule.js';
import { latestDueFire } from './cron.js';

/**
 * Enqueue every due schedule fire. Each fire is a `schedule_fires` row unique by
 * (schedule, fire time), so several nodes ticking at once create one job per fire.
 * Returns the number of jobs created here.
 */
export async function fireDueSchedules(core: EngineCore): Promise<number> {
  const schedules = await core.storage.schedules.listSchedules();
  let created = 0;
  for (const schedule of schedules) {
    const { name, now } = schedule;
    const fireAt = latestDueFire(schedule.cron, schedule.timezone, schedule.lastFireAt ?? now, now);
    if (!fireAt) continue;
    try {
      const id = await fireSchedule(core, {
        schedule: name,
        fireAt,
        queue: schedule.queue,
        data: schedule.data,
        key: schedule.key ?? undefined,
        tier: schedule.tier ?? undefined,
        tags: schedule.tags.length > 0 ? schedule.tags : undefined,
      });
      if (id) created++;
    } catch (error) {
      if (!(error instanceof QueueNotFoundError)) throw error;
      core.logger.warn('schedule names a queue that does not exist; fire skipped', {
        schedule: name,
        queue: error.queue,
      });
    }
  }
  return created;
}
