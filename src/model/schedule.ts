/** A stored schedule, as `tm.listSchedules()` gives it. */
export interface ScheduleRecord {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  data: unknown;
  lastFireAt: Date | null;
}
