import type { ScheduleJobOptions } from '../../model/schedule.js';
import { defineQuery } from './define-query.js';
import {
  DUE_AT,
  INPUT_ROWS,
  INSERT_COLUMNS,
  INSERT_VALUES,
  type InsertParams,
  NUDGE_READY_QUEUES,
} from './job-columns.js';
import { IN_FLIGHT } from './statuses.js';

/** A schedule as stored, with the database's clock (`now`) to compute due fires against. */
export interface ScheduleRow {
  name: string;
  cron: string;
  timezone: string;
  queue: string;
  data: unknown;
  options: ScheduleJobOptions;
  last_fire_at: Date | null;
  fired_at: Date | null;
  paused: boolean;
  now: Date;
}

export const upsertSchedule = defineQuery<
  {
    name: string;
    cron: string;
    timezone: string;
    queue: string;
    data: string;
    options: string;
  },
  { name: string }
>(
  'upsertSchedule',
  /* sql */ `
  insert into /*schema*/schedules (name, cron, timezone, queue, data, options, last_fire_at)
  values (@name, @cron, @timezone, @queue, @data::jsonb, @options::jsonb, now())
  on conflict (name) do update
     set cron = excluded.cron, timezone = excluded.timezone, queue = excluded.queue, data = excluded.data,
         options = excluded.options,
         updated_at = now(),
         -- a changed expression starts counting from now, so it never back-fires
         last_fire_at = case when /*schema*/schedules.cron is distinct from excluded.cron
                               or /*schema*/schedules.timezone is distinct from excluded.timezone
                             then now() else /*schema*/schedules.last_fire_at end
  returning name`,
);

/**
 * Pause or resume a schedule; the name when it exists. A resume counts from now: the slots a
 * paused schedule missed are not fired.
 */
export const setSchedulePaused = defineQuery<{ name: string; paused: boolean }, { name: string }>(
  'setSchedulePaused',
  /* sql */ `
  update /*schema*/schedules
     set paused = @paused::boolean, updated_at = now(),
         last_fire_at = case when paused and not @paused::boolean then now() else last_fire_at end
   where name = @name
  returning name`,
);

export const deleteSchedule = defineQuery<{ name: string }, { name: string }>(
  'deleteSchedule',
  /* sql */ `delete from /*schema*/schedules where name = @name returning name`,
);

/** Every schedule by name, or the one named @name. */
export const listSchedules = defineQuery<{ name: string | null }, ScheduleRow>(
  'listSchedules',
  /* sql */ `select name, cron, timezone, queue, data, options, last_fire_at, fired_at, paused, now() as now
    from /*schema*/schedules where @name::text is null or name = @name order by name`,
);

/**
 * The latest @per_schedule fires of every schedule, newest first, each with its job's status
 * (null once the job is gone). One walk of the fires' primary key per schedule.
 */
export const recentScheduleFires = defineQuery<
  { per_schedule: number },
  { schedule_name: string; fire_at: Date; job_id: string; status: string | null }
>(
  'recentScheduleFires',
  /* sql */ `
  select s.name as schedule_name, f.fire_at, f.job_id::text as job_id, j.status
    from /*schema*/schedules s
   cross join lateral (
     select fire_at, job_id from /*schema*/schedule_fires
      where schedule_name = s.name
      order by fire_at desc
      limit @per_schedule
   ) f
    left join /*schema*/jobs j on j.id = f.job_id
   order by s.name, f.fire_at desc`,
);

/**
 * Record one fire and create its job in the same statement. The fire row is unique by
 * (schedule, fire time), so nodes racing on the same fire create one job between them. The
 * schedule row is locked and must not have fired at or after @fire_at yet: a node that read
 * the schedule before another fired a later slot does not fire an older one after it (the
 * missed-fire policy keeps only the latest slot), and a schedule deleted meanwhile fires nothing.
 */
export const recordScheduleFire = defineQuery<
  InsertParams & { name: string; fire_at: Date; manual: boolean },
  /** `id`: the job created, null when another node fired it. The counts are bigint, so text. */
  { id: string | null; advanced: string; n: string }
>(
  'recordScheduleFire',
  /* sql */ `
  -- A manual fire (triggerSchedule) is at the database's own time, past any fire recorded, and
  -- leaves the count of slots alone: the slot due next still fires.
  with due as (
    select name,
           case when @manual::boolean
                then greatest(now(), fired_at + interval '1 microsecond')
                else @fire_at::timestamptz end as at
      from /*schema*/schedules
     where name = @name
       and (@manual::boolean or ((last_fire_at is null or last_fire_at < @fire_at::timestamptz) and not paused))
       -- A schedule whose jobs are unique waits while its job is still in flight: the slot fires once
       -- that job has finished (only the latest slot, as after downtime).
       and not exists (select 1 from ${INPUT_ROWS}
                         join /*schema*/jobs k on k.queue = input.queue and k.unique_key = input.unique_key
                        where k.status in ${IN_FLIGHT})
     for update
  ),
  fire as (
    insert into /*schema*/schedule_fires (schedule_name, fire_at, job_id)
    select name, at, nextval(pg_get_serial_sequence('/*schema*/jobs', 'id')) from due
    on conflict (schedule_name, fire_at) do nothing
    returning job_id
  ),
  inserted as (
    insert into /*schema*/jobs (id, ${INSERT_COLUMNS})
    select fire.job_id, ${INSERT_VALUES}
      from fire cross join ${INPUT_ROWS}
     ${DUE_AT}
    returning id, queue, run_at
  ),
  advanced as (
    update /*schema*/schedules s
       set last_fire_at = case when @manual::boolean then s.last_fire_at else due.at end,
           fired_at = due.at
      from due where s.name = due.name
    returning s.name
  ),
  ${NUDGE_READY_QUEUES}
  select (select id::text from inserted) as id, (select count(*) from advanced) as advanced,
         (select n from nudged) as n`,
);
