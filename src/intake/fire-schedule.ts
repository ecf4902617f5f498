import type { EngineCore } from '../engine-core.js';
import type { ScheduleJobOptions } from '../model/schedule.js';
import { completeRows } from './insert-jobs.js';
import { resolveFire } from './job-request.js';

/** A schedule's slot that is due, and the job it makes. */
export interface DueFire {
  schedule: string;
  fireAt: Date;
  queue: string;
  data: unknown;
  /** The options each of its jobs gets, as stored with the schedule. */
  options: ScheduleJobOptions;
  /** Fired by `triggerSchedule`: a paused schedule fires too. */
  manual: boolean;
}

/**
 * Record a schedule's due fire and add its job through the intake, in one statement: the
 * job's id, or null when another node fired that slot. QueueNotFoundError, with nothing
 * written, when the schedule's queue exists nowhere.
 */
export async function fireSchedule(core: EngineCore, fire: DueFire): Promise<string | null> {
  const request = resolveFire(fire.queue, fire.data, fire.options);
  await completeRows(core, [request]);
  return core.storage.schedules.recordFire(
    fire.schedule,
    fire.fireAt,
    request.row,
    core.insertDefaults,
    fire.manual,
  );
}
