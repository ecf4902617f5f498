import type { RetentionPolicy } from './retention-policy.js';

/** A stored schedule, as `tm.listSchedules()` gives it. */
export interface ScheduleRecord {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  data: unknown;
  /** When it last fired (on its own or by `triggerSchedule`); null until it has. */
  lastFireAt: Date | null;
  /** When it fires next; null while paused, or when its expression never fires again. */
  nextFireAt: Date | null;
  /** Paused by `tm.pauseSchedule`: it fires nothing until resumed. */
  paused: boolean;
  /** The job options each fired job gets besides its key, tier and tags. */
  jobOptions: ScheduleFiredOptions;
  /** Each fired job's concurrency key, or null. */
  key: string | null;
  /** Each fired job's tier, or null. */
  tier: string | null;
  /** Each fired job's tags; empty when none. */
  tags: string[];
}

/** The options of `addJob` a schedule can give each job it fires, as they were given. */
export interface ScheduleFiredOptions {
  priority?: number;
  maxAttempts?: number;
  expireInSeconds?: number;
  retention?: RetentionPolicy | false;
  unique?: boolean | string;
}

/** What a schedule gives each job it fires besides its queue and data. */
export interface ScheduleJobOptions extends ScheduleFiredOptions {
  key?: string;
  tier?: string;
  tags?: string[];
}
