import { defineQuery, type NoParams } from './define-query.js';
import { removeJobs } from './job-removal.js';
import type { IdRow } from './jobs.js';
import { IN_FLIGHT } from './statuses.js';

/**
 * The operator's controls: the cluster-wide pause, holds, re-freezing a queue's history,
 * and the checks of an explicit delete. Every change of the pause or of the holds raises
 * the control row's `version`; see gate.ts for how deletions are ordered against them.
 * Deletions made of several statements (the archive path, explicit deletes) take the gate
 * as a statement of its own first (`retentionGate`); the statements after it have
 * snapshots taken once the lock is held.
 */

const CONTROL_COLUMNS = `paused, reason, paused_at, paused_by`;

/** The columns of CONTROL_COLUMNS. */
export interface ControlRow {
  paused: boolean;
  reason: string | null;
  paused_at: Date | null;
  paused_by: string | null;
}

/** The columns of HOLD_COLUMNS. */
export interface HoldRow {
  id: string;
  reason: string;
  queue: string | null;
  created_at: Date;
  created_by: string | null;
  jobs: number;
}

/** Lock the control row for a deletion and read the pause switch. */
export const retentionGate = defineQuery<NoParams, ControlRow>(
  'retentionGate',
  /* sql */ `select ${CONTROL_COLUMNS} from /*schema*/retention_control where id = 1 for share`,
);

export const readRetentionControl = defineQuery<NoParams, ControlRow & { holds: number }>(
  'readRetentionControl',
  /* sql */ `
  select ${CONTROL_COLUMNS}, (select count(*) from /*schema*/retention_holds)::int as holds
    from /*schema*/retention_control where id = 1`,
);

/** Pause: waits for deletions in progress. A second pause keeps the first one's time. */
export const pauseRetention = defineQuery<{ reason: string; by: string }, ControlRow>(
  'pauseRetention',
  /* sql */ `
  insert into /*schema*/retention_control as c (id, paused, reason, paused_at, paused_by, version)
  values (1, true, @reason, now(), @by, 1)
  on conflict (id) do update
     set paused = true, reason = excluded.reason, paused_by = excluded.paused_by,
         paused_at = case when c.paused then c.paused_at else now() end, version = c.version + 1
  returning ${CONTROL_COLUMNS}`,
);

/** Resume: a retention that is not paused is left as it is (its version too). */
export const resumeRetention = defineQuery<NoParams, ControlRow>(
  'resumeRetention',
  /* sql */ `
  update /*schema*/retention_control
     set paused = false, reason = null, paused_at = null, paused_by = null, version = version + 1
   where id = 1 and paused
  returning ${CONTROL_COLUMNS}`,
);

/** Placing a hold: waits for deletions in progress, so each later one sees the hold. */
export const markHoldsChanged = defineQuery<NoParams, { id: number }>(
  'markHoldsChanged',
  /* sql */ `
  insert into /*schema*/retention_control as c (id, version) values (1, 1)
  on conflict (id) do update set version = c.version + 1
  returning id`,
);

export const insertHold = defineQuery<
  { reason: string; queue: string | null; by: string },
  { id: string; created_at: Date }
>(
  'insertHold',
  /* sql */ `
  insert into /*schema*/retention_holds (reason, queue, created_by) values (@reason, @queue, @by)
  returning id::text as id, created_at`,
);

/** Which of these ids are jobs that exist. */
export const existingJobIds = defineQuery<{ ids: string[] }, IdRow>(
  'existingJobIds',
  /* sql */ `select id::text as id from /*schema*/jobs where id = any(@ids::bigint[])`,
);

export const linkHoldJobs = defineQuery<{ hold_id: string; ids: string[] }, { job_id: string }>(
  'linkHoldJobs',
  /* sql */ `
  insert into /*schema*/retention_hold_jobs (hold_id, job_id, tree_id)
  select @hold_id::bigint, j.id, coalesce(j.root_id, j.id) from /*schema*/jobs j
   where j.id = any(@ids::bigint[])
  on conflict do nothing
  returning job_id`,
);

/** Release a hold: its links go with it. */
export const deleteHold = defineQuery<{ id: string }, IdRow>(
  'deleteHold',
  /* sql */ `delete from /*schema*/retention_holds where id = @id::bigint returning id::text as id`,
);

/** A hold's columns, with the jobs it covers now: those it names, and its queue's. */
const HOLD_COLUMNS = /* sql */ `h.id::text as id, h.reason, h.queue, h.created_at, h.created_by,
  (select count(*) from (
     select j.id from /*schema*/jobs j where j.queue = h.queue
     union
     select j.id from /*schema*/retention_hold_jobs l join /*schema*/jobs j on j.id = l.job_id where l.hold_id = h.id
   ) covered)::int as jobs`;

export const listHolds = defineQuery<NoParams, HoldRow>(
  'listHolds',
  /* sql */ `select ${HOLD_COLUMNS} from /*schema*/retention_holds h order by h.id`,
);

export const getHold = defineQuery<{ id: string }, HoldRow>(
  'getHold',
  /* sql */ `select ${HOLD_COLUMNS} from /*schema*/retention_holds h where h.id = @id::bigint`,
);

/** The top of job @id's tree, as a CTE named `top`. */
const TOP_OF_JOB = /* sql */ `top as (select coalesce(root_id, id) as id from /*schema*/jobs where id = @id::bigint)`;

/** Hold `h` keeps the tree of `top`: it names a job of it, or the queue of one of its members. */
const HOLD_KEEPS_TOP = /* sql */ `(
  exists (select 1 from /*schema*/retention_hold_jobs l where l.hold_id = h.id and l.tree_id = (select id from top))
  or h.queue in (select m.queue from /*schema*/jobs m
                  where m.id = (select id from top) or m.root_id = (select id from top)))`;

/** The holds that keep a job's tree. */
export const holdsOfJob = defineQuery<{ id: string }, HoldRow>(
  'holdsOfJob',
  /* sql */ `
  with ${TOP_OF_JOB}
  select ${HOLD_COLUMNS} from /*schema*/retention_holds h
   where ${HOLD_KEEPS_TOP}
   order by h.id`,
);

/**
 * An explicit delete, step one, after the gate: lock the top of the job's tree. retryJob
 * locks the same row first, so no member is reopened while the delete checks and deletes.
 * No row: the job does not exist.
 */
export const lockTreeTop = defineQuery<{ id: string }, IdRow>(
  'lockTreeTop',
  /* sql */ `
  select r.id::text as id from /*schema*/jobs r
   where r.id = (select coalesce(j.root_id, j.id) from /*schema*/jobs j where j.id = @id::bigint)
     for update of r`,
);

/**
 * An explicit delete, step two: delete the job and its descendants (with @single, only a
 * job without children) unless something forbids it, and say what did: a member in flight,
 * an ancestor in flight (its replay would create the deleted child again), any ancestor at
 * all (a retry of it would replay, and create the child again), or a hold on the tree. Members and ancestors are read with locking reads, which return each row's
 * newest version: one reopened after this statement's snapshot counts as in flight.
 * Checkpoints, signals, fires and unique locks go with them (removeJobs).
 */
/** A job named in an explicit delete's refusal. */
export interface JobRef {
  id: string;
  status: string;
}

export const deleteSubtreeChecked = defineQuery<
  { id: string; single: boolean },
  {
    members: number;
    in_flight: JobRef | null;
    ancestor: JobRef | null;
    top: JobRef | null;
    hold: { id: string; reason: string } | null;
    deleted: number;
  }
>(
  'deleteSubtreeChecked',
  /* sql */ `
  with recursive subtree as (
    select id, 0 as depth from /*schema*/jobs where id = @id::bigint
    union all
    select c.id, s.depth + 1 from /*schema*/jobs c join subtree s on c.parent_id = s.id
  ),
  ${TOP_OF_JOB},
  ancestors as (
    select p.id, p.parent_id, 1 as up from /*schema*/jobs p
     where p.id = (select parent_id from /*schema*/jobs where id = @id::bigint)
    union all
    select p.id, p.parent_id, a.up + 1 from /*schema*/jobs p join ancestors a on p.id = a.parent_id
  ),
  ancestors_now as materialized (
    select j.id, j.status, a.up from /*schema*/jobs j join ancestors a on a.id = j.id
     order by j.id
       for share of j
  ),
  members_now as materialized (
    select j.id, j.status, s.depth from /*schema*/jobs j join subtree s on s.id = j.id
     order by s.depth, j.id
       for update of j
  ),
  facts as (
    select
      (select count(*) from members_now)::int as members,
      (select jsonb_build_object('id', m.id::text, 'status', m.status) from members_now m
        where m.status in ${IN_FLIGHT} order by m.depth, m.id limit 1) as in_flight,
      (select jsonb_build_object('id', a.id::text, 'status', a.status) from ancestors_now a
        where a.status in ${IN_FLIGHT} order by a.up limit 1) as ancestor,
      (select jsonb_build_object('id', a.id::text, 'status', a.status) from ancestors_now a
        order by a.up desc limit 1) as top,
      (select jsonb_build_object('id', h.id::text, 'reason', h.reason) from /*schema*/retention_holds h
        where ${HOLD_KEEPS_TOP} order by h.id limit 1) as hold
  ),
  ${removeJobs([
    {
      name: 'deleted_subtree',
      clause: `using members_now m, facts f
     where j.id = m.id
       and f.in_flight is null and f.ancestor is null and f.top is null and f.hold is null
       and not (@single::boolean and f.members > 1)`,
    },
  ])}
  select f.members, f.in_flight, f.ancestor, f.top, f.hold, (select count(*) from removed)::int as deleted
    from facts f`,
);

/** Finished jobs that will still be deleted by their frozen windows (up to @cap, counted). */
export const countJobsWithWindow = defineQuery<{ cap: number }, { n: number }>(
  'countJobsWithWindow',
  /* sql */ `
  select count(*)::int as n
    from (select 1 from /*schema*/jobs where purge_after is not null limit @cap) due`,
);
