import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError, ScheduleNotFoundError } from '../errors.js';
import { fireSchedule } from '../intake/fire-schedule.js';
import { checkString } from '../options/check.js';
import type { StoredSchedule } from '../storage/storage.js';
import { latestDueFire } from './cron.js';

/**
 * Enqueue every due fire of the schedules that are not paused. Each fire is a
 * `schedule_fires` row unique by (schedule, fire time), so several nodes ticking at once
 * create one job per fire. Returns the number of jobs created here.
 */
export async function fireDueSchedules(core: EngineCore): Promise<number> {
  const schedules = await core.storage.schedules.listSchedules();
  let created = 0;
  for (const schedule of schedules) {
    if (schedule.paused) continue;
    const { now } = schedule;
    const fireAt = latestDueFire(schedule.cron, schedule.timezone, schedule.countedTo ?? now, now);
    if (!fireAt) continue;
    try {
      if (await fire(core, schedule, fireAt, false)) created++;
    } catch (error) {
      if (!(error instanceof QueueNotFoundError)) throw error;
      core.logger.warn('schedule names a queue that does not exist; fire skipped', {
        schedule: schedule.name,
        queue: error.queue,
      });
    }
  }
  return created;
}

/**
 * Fire a schedule once now, paused or not, recorded as a fire like any other: the job's id,
 * or null when it did not fire (its jobs are `unique` and one is still in flight).
 * ScheduleNotFoundError when there is no such schedule.
 */
export async function triggerSchedule(core: EngineCore, name: string): Promise<string | null> {
  checkString(name, 'name');
  const [schedule] = await core.storage.schedules.listSchedules(name);
  if (schedule === undefined) throw new ScheduleNotFoundError(name);
  // The statement takes the database's own time for a manual fire, at full precision.
  return fire(core, schedule, schedule.now, true);
}

function fire(
  core: EngineCore,
  schedule: StoredSchedule,
  fireAt: Date,
  manual: boolean,
): Promise<string | null> {
  return fireSchedule(core, {
    schedule: schedule.name,
    fireAt,
    queue: schedule.queue,
    data: schedule.data,
    options: schedule.options,
    manual,
  });
}
