/** A stored schedule, as `tm.listSchedules()` gives it. */
export interface ScheduleRecord {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  data: unknown;
  lastFireAt: Date | null;
  /** Each fired job's concurrency key, or null. */
  key: string | null;
  /** Each fired job's tier, or null. */
  tier: string | null;
  /** Each fired job's tags; empty when none. */
  tags: string[];
}

/** What a schedule gives each job it fires besides its queue and data. */
export interface ScheduleJobOptions {
  key?: string;
  tier?: string;
  tags?: string[];
}
