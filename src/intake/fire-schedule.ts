import type { EngineCore } from '../engine-core.js';
import { completeRows } from './insert-jobs.js';
import { resolveFire } from './job-request.js';

/** A schedule's slot that is due, and the job it makes. */
export interface DueFire {
  schedule: string;
  fireAt: Date;
  queue: string;
  data: unknown;
  key?: string;
  tier?: string;
  tags?: string[];
}

/**
 * Record a schedule's due fire and add its job through the intake, in one statement: the
 * job's id, or null when another node fired that slot. QueueNotFoundError, with nothing
 * written, when the schedule's queue exists nowhere.
 */
export async function fireSchedule(core: EngineCore, fire: DueFire): Promise<string | null> {
  const request = resolveFire(fire.queue, fire.data, { key: fire.key, tier: fire.tier, tags: fire.tags });
  await completeRows(core, [request]);
  return core.storage.schedules.recordFire(fire.schedule, fire.fireAt, request.row, core.insertDefaults);
}
