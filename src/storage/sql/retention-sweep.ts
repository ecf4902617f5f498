import { defineQuery, defineSizedQuery, type NoParams, type NoRows } from './define-query.js';
import { GATE, GATE_OPEN, GATE_STATE, type GateRow } from './gate.js';
import { TREE_HELD } from './held.js';
import { removeJobs } from './job-removal.js';
import {
  BATCH,
  type BatchParams,
  type BatchRules,
  CURSOR,
  type CursorRow,
  FILTER_ONLY,
  FROM_LAST,
  LOCKED_TREES,
  NOT_DUE,
  TOP_FREE,
} from './retention-batch.js';
import { FINISHED } from './statuses.js';
import type { StoredCheckpoint, StoredSignal } from './workflow.js';

/** Jobs deleted (or due) in one queue and status. */
export interface CountRow {
  queue: string;
  status: string;
  n: number;
}

/**
 * The retention sweep's SQL: due trees in batches (the shape in retention-batch.ts), the
 * archive path's lock, read and delete, consumed signals, log lines and expired unique
 * locks on their own windows, the dry run's counts, and the space reclaim after deleting.
 */

/** Tops whose whole tree is due now (rule R3), without locks or order: for previews. */
const DUE_TOPS = /* sql */ `
  select r.id from /*schema*/jobs r
   where r.purge_after <= now() and r.root_id is null and r.status in ${FINISHED}
     and ${TOP_FREE('r')}
     and not exists (select 1 from /*schema*/jobs m where m.root_id = r.id and ${NOT_DUE('m')})`;

/** Jobs a full pass would delete now: due tops and their members. */
const DOOMED_JOBS = /* sql */ `
  tops as (${DUE_TOPS}),
  doomed as (
    select id from tops
    union all
    select m.id from /*schema*/jobs m where m.root_id in (select id from tops)
  )`;

/** The sweep's rules: due, unpinned, unheld trees (R1 to R4, R11). */
const DUE: BatchRules = {
  scanned: /* sql */ `scanned as materialized (
    select r.id, r.purge_after as key from /*schema*/jobs r
     where r.purge_after <= now()
       and (r.purge_after, r.id) > (@after::timestamptz, @after_id::bigint)
     order by r.purge_after, r.id
     limit @batch_size
  )`,
  keyColumn: 'purge_after',
  top: (r) =>
    `${r}.root_id is null and ${FILTER_ONLY(`${r}.status in ${FINISHED}`)} and ${FILTER_ONLY(`${r}.purge_after <= now()`)}
     and ${TOP_FREE(r)}`,
  memberKeeps: NOT_DUE,
  memberStill: (m) => `${m}.status in ${FINISHED} and ${m}.purge_after <= now()`,
};

/**
 * One batch of the retention sweep: delete the trees among the next @batch_size due tops.
 * Returns one row: the cursor, and what was deleted per queue and status.
 */
export const deleteDueTrees = defineSizedQuery<BatchParams, CursorRow & GateRow & { counts: CountRow[] }>(
  'deleteDueTrees',
  /* sql */ `
  with ${BATCH(DUE)}
  select ${CURSOR}, ${GATE_STATE},
         coalesce((select jsonb_agg(x) from (
           select queue, status, count(*)::int as n from removed group by queue, status) x), '[]') as counts
  ${FROM_LAST}`,
);

/**
 * The archive path, step one: lock one batch of due trees in the caller's transaction and
 * return their ids; the hook sees them, then deleteJobsById removes them.
 */
export const lockDueTrees = defineSizedQuery<BatchParams, CursorRow & { ids: string[] }>(
  'lockDueTrees',
  /* sql */ `
  with ${DUE.scanned},
  ${LOCKED_TREES(DUE, 'array(select id from scanned)')}
  select ${CURSOR},
         coalesce((select array_agg(id::text) from targets), '{}') as ids
  ${FROM_LAST}`,
);

export const deleteJobsById = defineQuery<{ ids: string[] }, CountRow>(
  'deleteJobsById',
  /* sql */ `
  with ${removeJobs([{ name: 'by_id', clause: 'where j.id = any(@ids::bigint[])' }])}
  select queue, status, count(*)::int as n from removed group by queue, status`,
);

/** Checkpoints of many jobs at once (for the archive hook). */
export const checkpointsOfJobs = defineQuery<{ ids: string[] }, StoredCheckpoint & { job_id: string }>(
  'checkpointsOfJobs',
  /* sql */ `
  select job_id::text as job_id, name, kind, output, created_at, seq from /*schema*/checkpoints
   where job_id = any(@ids::bigint[]) order by job_id, created_at, seq, name`,
);

/** Signals of many jobs at once (for the archive hook). */
export const signalsOfJobs = defineQuery<{ ids: string[] }, StoredSignal & { job_id: string }>(
  'signalsOfJobs',
  /* sql */ `
  select id::text as id, job_id::text as job_id, name, payload, created_at, consumed_at, consumed_by, purge_after
    from /*schema*/signals where job_id = any(@ids::bigint[]) order by job_id, id`,
);

/** What a full sweep would delete now, per queue and status (dry run). */
export const previewDueTrees = defineQuery<NoParams, CountRow>(
  'previewDueTrees',
  /* sql */ `
  with ${DOOMED_JOBS}
  select j.queue, j.status, count(*)::int as n from /*schema*/jobs j
   where j.id in (select id from doomed)
   group by j.queue, j.status order by j.queue, j.status`,
);

/** Row `x` (of a table with a `job_id`) belongs to a job in a tree no hold keeps (R11). */
const OWNER_UNHELD = (x: string) => /* sql */ `not exists (select 1 from /*schema*/jobs ${x}j
                      where ${x}j.id = ${x}.job_id and ${TREE_HELD(`coalesce(${x}j.root_id, ${x}j.id)`)})`;

/** A consumed signal `s` past its own window, of a job in a tree no hold keeps. */
const SIGNAL_DUE = (s: string) => /* sql */ `${s}.purge_after <= now() and ${s}.consumed_at is not null
     and ${OWNER_UNHELD(s)}`;

/** A log line `x` past its own window, of a job in a tree no hold keeps. */
const LOG_DUE = (x: string) => /* sql */ `${x}.purge_after <= now() and ${OWNER_UNHELD(x)}`;

/**
 * One batch of the rows of `table` (alias `x`, keyed by `id`) that `due(x)` says are past
 * their own window, behind the gate, oldest due first; returns how many went.
 */
const DELETE_DUE_ROWS = (table: string, due: (x: string) => string) => /* sql */ `
  with ${GATE},
  doomed as (
    select x.id from /*schema*/${table} x
     where ${due('x')} and ${GATE_OPEN}
     order by x.purge_after
     limit @batch_size
       for update of x skip locked
  ),
  deleted as (delete from /*schema*/${table} x where x.id = any(array(select id from doomed)) returning x.id)
  select (select count(*) from deleted)::int as n, ${GATE_STATE}`;

/** The rows of `table` a full pass would delete on their own window (not with their job). */
const COUNT_DUE_ROWS = (table: string, due: (x: string) => string) => /* sql */ `
  with ${DOOMED_JOBS}
  select count(*)::int as n from /*schema*/${table} x
   where ${due('x')} and x.job_id not in (select id from doomed)`;

/** Consumed signals past their own window (R6), behind the gate. Pending signals never match. */
export const deleteConsumedSignals = defineSizedQuery<NoParams, GateRow & { n: number }>(
  'deleteConsumedSignals',
  DELETE_DUE_ROWS('signals', SIGNAL_DUE),
);

/** Consumed signals a full pass would delete on their own window (not with their job). */
export const countConsumedSignalsDue = defineQuery<NoParams, { n: number }>(
  'countConsumedSignalsDue',
  COUNT_DUE_ROWS('signals', SIGNAL_DUE),
);

/** Log lines past their own window (`logsAfterSeconds`), behind the gate, oldest due first. */
export const deleteDueLogLines = defineSizedQuery<NoParams, GateRow & { n: number }>(
  'deleteDueLogLines',
  DELETE_DUE_ROWS('job_logs', LOG_DUE),
);

/** Log lines a full pass would delete on their own window (not with their job). */
export const countDueLogLines = defineQuery<NoParams, { n: number }>(
  'countDueLogLines',
  COUNT_DUE_ROWS('job_logs', LOG_DUE),
);

/** Expired unique locks (R8), behind the gate. A lock that expired is replaceable at enqueue time anyway. */
export const deleteExpiredUniqueLocks = defineSizedQuery<NoParams, GateRow & { n: number }>(
  'deleteExpiredUniqueLocks',
  /* sql */ `
  with ${GATE},
  doomed as (
    select scope from /*schema*/unique_locks
     where expires_at <= now() and ${GATE_OPEN}
     order by expires_at
     limit @batch_size
       for update skip locked
  ),
  deleted as (
    delete from /*schema*/unique_locks u where u.scope = any(array(select scope from doomed)) returning u.scope
  )
  select (select count(*) from deleted)::int as n, ${GATE_STATE}`,
);

/** Expired unique locks a full pass would delete on their own (not with their job). */
export const countExpiredUniqueLocks = defineQuery<NoParams, { n: number }>(
  'countExpiredUniqueLocks',
  /* sql */ `
  with ${DOOMED_JOBS}
  select count(*)::int as n from /*schema*/unique_locks u
   where u.expires_at <= now() and u.job_id not in (select id from doomed)`,
);

/**
 * Reclaim the space of deleted rows. Autovacuum never runs in embedded PGlite, so the
 * sweep runs this there after deleting; it cannot run inside a transaction.
 */
export const vacuumSweptTables = defineQuery<NoParams, NoRows>(
  'vacuumSweptTables',
  /* sql */ `vacuum (analyze) /*schema*/jobs, /*schema*/checkpoints, /*schema*/signals,
    /*schema*/unique_locks, /*schema*/schedule_fires, /*schema*/job_logs`,
);
