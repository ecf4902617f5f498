import type { ScheduleJobOptions, ScheduleRecord } from '../model/schedule.js';
import { type InsertDefaults, type InsertRow, insertParams } from './insert-rows.js';
import { isUniqueKeyViolation } from './job-actions.js';
import type { Runner } from './runner.js';
import * as sql from './sql/schedules.js';

/** A stored schedule as its row holds it, with the database's clock (`now`) to compute due fires against. */
export interface StoredSchedule
  extends Pick<ScheduleRecord, 'name' | 'cron' | 'timezone' | 'queue' | 'data' | 'lastFireAt' | 'paused'> {
  /** The slot it has counted up to: fires are due after it. */
  countedTo: Date | null;
  /** Every option its jobs get, as stored. */
  options: ScheduleJobOptions;
  now: Date;
}

/** A schedule to store: its data as JSON text, checked already. */
export interface ScheduleToStore {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  data: string;
  /** Each fired job's key, tier and tags. */
  options: ScheduleJobOptions;
}

/** Create or replace a schedule. */
export async function upsertSchedule(db: Runner, schedule: ScheduleToStore): Promise<void> {
  await db.run(sql.upsertSchedule, { ...schedule, options: JSON.stringify(schedule.options) });
}

/** Pause or resume a schedule; false when there is none of that name. */
export async function setSchedulePaused(db: Runner, name: string, paused: boolean): Promise<boolean> {
  return (await db.run(sql.setSchedulePaused, { name, paused })).length > 0;
}

/** Delete a schedule; false when there was none of that name. */
export async function deleteSchedule(db: Runner, name: string): Promise<boolean> {
  return (await db.run(sql.deleteSchedule, { name })).length > 0;
}

/** Every schedule by name, or only the one named `name`. */
export async function listSchedules(db: Runner, name?: string): Promise<StoredSchedule[]> {
  const rows = await db.run(sql.listSchedules, { name: name ?? null });
  return rows.map((row) => ({
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    queue: row.queue,
    data: row.data,
    lastFireAt: row.fired_at ?? null,
    countedTo: row.last_fire_at ?? null,
    paused: row.paused,
    options: row.options ?? {},
    now: row.now,
  }));
}

/** The latest `perSchedule` fires of every schedule, newest first, with their jobs' statuses. */
export async function recentFires(
  db: Runner,
  perSchedule: number,
): Promise<{ scheduleName: string; fireAt: Date; jobId: string; status: string | null }[]> {
  const rows = await db.run(sql.recentScheduleFires, { per_schedule: perSchedule });
  return rows.map((row) => ({
    scheduleName: row.schedule_name,
    fireAt: row.fire_at,
    jobId: String(row.job_id),
    status: row.status,
  }));
}

/**
 * Record one due fire of a schedule and create its job (`row`) in the same statement; the
 * job's id, or null when another node fired that slot.
 */
export async function recordFire(
  db: Runner,
  name: string,
  fireAt: Date,
  row: InsertRow,
  defaults: InsertDefaults,
  manual = false,
): Promise<string | null> {
  let fired: { id: string | null } | undefined;
  try {
    [fired] = await db.run(sql.recordScheduleFire, {
      ...insertParams([row], defaults, db.channel),
      name,
      fire_at: fireAt,
      manual,
    });
  } catch (error) {
    // A job with the schedule's unique key was added after the statement's check: the fire
    // waits, as if the check had seen it (the statement rolled back whole).
    if (isUniqueKeyViolation(error)) return null;
    throw error;
  }
  return fired?.id ? String(fired.id) : null;
}
