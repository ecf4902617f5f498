import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, ScheduleNotFoundError } from '../errors.js';
import { jobOptions } from '../intake/job-options.js';
import { validatedDataText } from '../intake/validate-data.js';
import type { ScheduleJobOptions, ScheduleRecord } from '../model/schedule.js';
import { checkString } from '../options/check.js';
import { custom, text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { jsonDataField } from '../options/shared-fields.js';
import type { StoredSchedule } from '../storage/storage.js';
import { checkCron, nextFire } from './cron.js';

/** `tm.schedule`'s options, declared once. */
export const scheduleOptions = new OptionSet(
  'schedule',
  {
    name: text(200, { description: "the schedule's name; scheduling the same name again replaces it" }),
    cron: custom<string>({
      expected: 'a cron expression such as "*/5 * * * *"',
      docType: '`string`',
      description:
        'when it fires: five fields (minute hour day month weekday), or six with seconds first; `@hourly`, `@daily` and the like',
      jsonSchema: { type: 'string', minLength: 1, maxLength: 200 },
      check: (value) => checkCron(value, undefined).cron,
    }),
    queue: text(200, { description: 'the queue each fire adds a job to; it must exist' }),
    data: jsonDataField({ description: "each fired job's data" }),
    timezone: custom<string, string, string>({
      expected: 'an IANA time zone such as "Europe/Paris"',
      docType: '`string`',
      default: 'UTC',
      description: 'the IANA time zone the expression is read in',
      jsonSchema: { type: 'string', default: 'UTC' },
      check: (value) => checkCron('* * * * *', value).timezone,
    }),
    key: jobOptions.properties.key,
    tier: jobOptions.properties.tier,
    tags: jobOptions.properties.tags,
    priority: jobOptions.properties.priority,
    maxAttempts: jobOptions.properties.maxAttempts,
    expireInSeconds: jobOptions.properties.expireInSeconds,
    retention: jobOptions.properties.retention,
    unique: jobOptions.properties.unique,
  },
  ['name', 'cron', 'queue'],
);

/** Options of `tm.schedule`. */
export type ScheduleOptions = OptionsOf<typeof scheduleOptions.properties, 'name' | 'cron' | 'queue'>;

export type { ScheduleRecord } from '../model/schedule.js';

/** A schedule whose options have been checked: what is stored. */
export interface CheckedSchedule {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  /** `data` as JSON text. */
  data: string;
  /** Each fired job's options: concurrency key, tier, tags, priority, attempts, expiry, retention, unique. */
  options: ScheduleJobOptions;
}

/** Check `tm.schedule`'s options (the cron expression in its time zone too) before anything is read. */
export function checkSchedule(input: ScheduleOptions): CheckedSchedule {
  const { name, cron, queue, data, timezone, retention, ...given } = scheduleOptions.read(input);
  const options: ScheduleJobOptions = {};
  // Only what was given: a default (priority 0) stays the queue's and addJob's to decide.
  for (const [option, value] of Object.entries(given)) {
    if (value !== undefined && Object.hasOwn(input, option)) Reflect.set(options, option, value);
  }
  // Stored as given, and resolved at each fire as addJob resolves it.
  if (retention !== undefined) options.retention = retention.policy;
  return { name, queue, data, options, ...checkCron(cron, timezone) };
}

/** Create or replace a schedule; its queue must exist (QueueNotFoundError otherwise). */
export async function saveSchedule(core: EngineCore, schedule: CheckedSchedule): Promise<void> {
  const queue = await core.registry.get(schedule.queue);
  const { tier } = schedule.options;
  if (tier !== undefined && !Object.hasOwn(queue.keys?.tiers ?? {}, tier))
    throw new InvalidOptionError('tier', `one of the tiers of queue '${schedule.queue}'`, tier);
  // Each fire adds this data: a queue's schema checks it once, here, and its output is stored.
  const data = await validatedDataText(core, schedule.queue, schedule.data);
  await core.storage.schedules.upsertSchedule(data === schedule.data ? schedule : { ...schedule, data });
}

/** Pause or resume a schedule; ScheduleNotFoundError when there is none of that name. */
export async function setSchedulePaused(core: EngineCore, name: string, paused: boolean): Promise<void> {
  checkString(name, 'name');
  if (!(await core.storage.schedules.setSchedulePaused(name, paused))) throw new ScheduleNotFoundError(name);
}

/** Delete a schedule; ScheduleNotFoundError when there is none of that name. */
export async function removeSchedule(core: EngineCore, name: string): Promise<void> {
  checkString(name, 'name');
  if (!(await core.storage.schedules.deleteSchedule(name))) throw new ScheduleNotFoundError(name);
}

/** Every schedule, by name. */
export async function readSchedules(core: EngineCore): Promise<ScheduleRecord[]> {
  return (await core.storage.schedules.listSchedules()).map(scheduleRecord);
}

/**
 * A stored schedule as `listSchedules` gives it, with its next fire by the database's clock:
 * the next slot after now (a slot missed while no worker ran fires once at the next tick), or
 * null while it is paused.
 */
export function scheduleRecord(stored: StoredSchedule): ScheduleRecord {
  const { now, countedTo, options, ...schedule } = stored;
  const { key, tier, tags, ...jobOptions } = options;
  const from = countedTo !== null && countedTo > now ? countedTo : now;
  return {
    ...schedule,
    key: key ?? null,
    tier: tier ?? null,
    tags: tags ?? [],
    jobOptions,
    nextFireAt: stored.paused ? null : nextFire(stored.cron, stored.timezone, from),
  };
}
