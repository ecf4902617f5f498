import type { EngineCore } from '../engine-core.js';
import { ScheduleNotFoundError } from '../errors.js';
import { checkKnownKeys, checkObject, checkString } from '../options/check.js';
import { toJsonText } from '../options/json.js';
import { checkCron } from './cron.js';

/** Options of `tm.schedule`. */
export interface ScheduleOptions {
  name: string;
  cron: string;
  queue: string;
  data?: unknown;
  /** IANA time zone; default UTC. */
  timezone?: string;
}

/** A stored schedule, as `tm.listSchedules()` gives it. */
export interface ScheduleRecord {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  data: unknown;
  lastFireAt: Date | null;
}

/** A schedule whose options have been checked: what is stored. */
export interface CheckedSchedule {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  /** `data` as JSON text. */
  data: string;
}

/** Check `tm.schedule`'s options (the cron expression and time zone too) before anything is read. */
export function checkSchedule(options: ScheduleOptions): CheckedSchedule {
  const input = checkObject(options, 'schedule');
  checkKnownKeys(input, '', ['name', 'cron', 'queue', 'data', 'timezone']);
  const name = checkString(input.name, 'name');
  const { cron, timezone } = checkCron(input.cron, input.timezone);
  const queue = checkString(input.queue, 'queue');
  const data = toJsonText(input.data, 'data');
  return { name, cron, timezone, queue, data };
}

/** Create or replace a schedule; its queue must exist (QueueNotFoundError otherwise). */
export async function saveSchedule(core: EngineCore, schedule: CheckedSchedule): Promise<void> {
  await core.registry.get(schedule.queue);
  await core.storage.schedules.upsertSchedule(schedule);
}

/** Delete a schedule; ScheduleNotFoundError when there is none of that name. */
export async function removeSchedule(core: EngineCore, name: string): Promise<void> {
  checkString(name, 'name');
  if (!(await core.storage.schedules.deleteSchedule(name))) throw new ScheduleNotFoundError(name);
}

/** Every schedule, by name. */
export async function readSchedules(core: EngineCore): Promise<ScheduleRecord[]> {
  const rows = await core.storage.schedules.listSchedules();
  return rows.map(({ now: _now, ...schedule }) => schedule);
}
