import { JobActionCalls } from './job-action-calls.js';
import type { AuditOptions } from './model/audit.js';
import { triggerSchedule } from './schedule/fire-schedules.js';
import * as schedules from './schedule/schedules.js';

/**
 * The cron schedule calls of the Tidemark engine: create or replace, remove, list, pause,
 * resume and fire now, each control recorded in the audit. `Tidemark` extends it.
 */
export abstract class ScheduleCalls extends JobActionCalls {
  /** Create or replace a cron schedule that enqueues `data` on `queue`. */
  async schedule(options: schedules.ScheduleOptions): Promise<void> {
    const schedule = schedules.checkSchedule(options);
    return this.whenReady((core) => schedules.saveSchedule(core, schedule));
  }

  async unschedule(name: string, options?: AuditOptions): Promise<void> {
    return this.audit(options, 'unschedule', { schedule: name }, (core) =>
      schedules.removeSchedule(core, name),
    );
  }

  async listSchedules(): Promise<schedules.ScheduleRecord[]> {
    return this.whenReady(schedules.readSchedules);
  }

  /** Stop a schedule firing until resumed (ScheduleNotFoundError if there is none of that name). */
  async pauseSchedule(name: string, options?: AuditOptions): Promise<void> {
    const target = { schedule: name };
    return this.audit(options, 'pause-schedule', target, (core) =>
      schedules.setSchedulePaused(core, name, true),
    );
  }

  /** Let a paused schedule fire again, from its next slot: the slots it missed are not fired. */
  async resumeSchedule(name: string, options?: AuditOptions): Promise<void> {
    const target = { schedule: name };
    return this.audit(options, 'resume-schedule', target, (core) =>
      schedules.setSchedulePaused(core, name, false),
    );
  }

  /**
   * Fire a schedule once now, paused or not, recorded as a fire: the job's id, or null when its
   * jobs are `unique` and one is still in flight.
   */
  async triggerSchedule(name: string, options?: AuditOptions): Promise<string | null> {
    const target = { schedule: name };
    return this.audit(
      options,
      'trigger-schedule',
      target,
      (core) => triggerSchedule(core, name),
      (id) => (id ? 1 : 0),
    );
  }
}
