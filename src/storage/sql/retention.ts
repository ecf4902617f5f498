import { defineQuery, defineSizedQuery } from './define-query.js';
import { GATE, GATE_OPEN, GATE_STATE } from './gate.js';
import { PROBE, QUEUE_HELD, TREE_HELD, TREE_LINKED } from './held.js';
import { ANY_IN_SPAN, removeJobs } from './job-removal.js';

/**
 * Retention SQL: the due-tree sweep, consumed signals, expired unique locks, the manual
 * purge and the sweep history. Every statement that deletes jobs in batches follows the
 * same shape (BATCH, below):
 *
 * 1. `scanned`: the next @batch_size entries of an index (purge_after, or finished_at for
 *    the purge) from a keyset cursor on. A plain ordered range scan with a limit, so the
 *    plan stays an index scan however the due set is estimated, and every entry is read
 *    once per pass even when its row is kept (a tree member, a pinned or held tree).
 * 2. `with_members`: the scanned tops that have tree members (one root_id index probe per
 *    entry). Most jobs are a tree of one and have none.
 * 3. `singles`: the scanned tops without members that qualify, deleted directly. The
 *    delete's own row lock and recheck keep a row someone changed meanwhile: a retry sets
 *    its status and clears its purge time, a new finish writes a new one, so the recheck of
 *    "still finished, same key as scanned" fails and the row stays. Another sweeper's
 *    delete makes it wait, then skip the row.
 * 4. `candidates`: the tops with members that qualify together with every member, in the
 *    statement's snapshot; locked with SKIP LOCKED, so two sweepers (or a sweeper and a
 *    retryJob, which locks the top first) never wait on each other.
 * 5. `members`: their members, locked (SKIP LOCKED) and read again. A locking read returns
 *    the newest version of a row, so a member reopened after the snapshot shows up as no
 *    longer qualifying, and a member someone else holds is missing. Either way the tree is
 *    left for a later pass; `trees` are the tops whose members all came back qualifying.
 * 6. removeJobs (job-removal.ts): the deletes, by primary key, and every dependent row of
 *    the jobs deleted, in the same statement.
 *
 * Each deleting statement carries the retention gate (gate.ts): it deletes nothing while
 * retention is paused, or when a hold was placed after its snapshot was taken, and says so
 * in its result; holds cannot change while it runs.
 */

const FINISHED = `('completed', 'failed', 'cancelled', 'expired')`;

/**
 * Whether any unique lock is live; evaluated once per statement (one entry of the expiry
 * index, read by max()), so jobs pay no probe when none is.
 */
const ANY_LIVE_LOCK = /* sql */ `coalesce((select max(expires_at) from /*schema*/unique_locks) > now(), false)`;

/** A live unique lock on job `job` (rule R4): an index probe, however many locks are live. */
const PINNED = (job: string) =>
  `(${ANY_LIVE_LOCK} and ${PROBE(`/*schema*/unique_locks u where u.job_id = ${job}.id and u.expires_at > now()`)})`;

/** Job `m` is not due (rules R1, R2, R4): in flight, kept forever, not yet due, pinned, or held. */
const NOT_DUE = (m: string) =>
  `(${m}.status not in ${FINISHED} or ${m}.purge_after is null or ${m}.purge_after > now() or ${PINNED(m)}
    or ${QUEUE_HELD(m)})`;

/** Top `r` is neither pinned nor held itself (its members are checked by NOT_DUE). */
const TOP_FREE = (r: string) => `not ${PINNED(r)} and not ${TREE_LINKED(`${r}.id`)} and not ${QUEUE_HELD(r)}`;

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

/** What a batch statement deletes by: see the shape above. */
interface BatchRules {
  /** Step 1: the CTE `scanned` (id, key), from the keyset cursor. */
  scanned: string;
  /** The column `scanned.key` was read from: a single is deleted only if it still holds that value. */
  keyColumn: 'purge_after' | 'finished_at';
  /** A top (alias given) qualifies itself, its members aside. */
  top: (r: string) => string;
  /** A member `m` keeps its tree: the tree does not qualify while one exists. */
  memberKeeps: (m: string) => string;
  /** A locked member `m`, read again, still qualifies. */
  memberStill: (m: string) => string;
}

/** Tops among `from` (an id array) that qualify with every member, locked; steps 4 and 5. */
const LOCKED_TREES = (rules: BatchRules, from: string) => /* sql */ `
  candidates as materialized (
    select r.id from /*schema*/jobs r
     where r.id = any(${from})
       and ${rules.top('r')}
       and not exists (select 1 from /*schema*/jobs m where m.root_id = r.id and ${rules.memberKeeps('m')})
       for update of r skip locked
  ),
  members as materialized (
    select m.id, m.root_id, coalesce(${rules.memberStill('m')}, false) as ok
      from /*schema*/jobs m
     where m.root_id = any(array(select id from candidates))
       for update of m skip locked
  ),
  seen as materialized (
    select m.root_id, count(*) as n from /*schema*/jobs m
     where m.root_id = any(array(select id from candidates)) group by m.root_id
  ),
  kept as (
    select root_id, count(*) filter (where ok) as n from members group by root_id
  ),
  trees as (
    select c.id from candidates c
      left join seen on seen.root_id = c.id
      left join kept on kept.root_id = c.id
     where coalesce(seen.n, 0) = coalesce(kept.n, 0)
  ),
  targets as (
    select id from trees
    union all
    select m.id from members m join trees t on t.id = m.root_id
  )`;

/** Steps 1 to 6 of the shape above: one batch that deletes, behind the gate. */
const BATCH = (rules: BatchRules) => /* sql */ `
  ${GATE},
  ${rules.scanned},
  scanned_span as materialized (select min(id) as lo, max(id) as hi from scanned),
  with_members as materialized (
    select distinct m.root_id as id from /*schema*/jobs m
     where ${ANY_IN_SPAN('jobs', 'root_id', 'scanned_span')}
       and m.root_id = any(array(select id from scanned))
  ),
  ${LOCKED_TREES(rules, `case when ${GATE_OPEN} then array(select id from with_members) end`)},
  ${removeJobs([
    {
      name: 'singles',
      clause: `using scanned s
     where j.id = s.id and j.${rules.keyColumn} = s.key
       and not exists (select 1 from with_members w where w.id = j.id)
       and ${rules.top('j')}
       and ${GATE_OPEN}`,
    },
    { name: 'tree_jobs', clause: `where j.id = any(array(select id from targets)) and ${GATE_OPEN}` },
  ])}`;

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
    `${r}.root_id is null and ${r}.status in ${FINISHED} and ${r}.purge_after <= now() and ${TOP_FREE(r)}`,
  memberKeeps: NOT_DUE,
  memberStill: (m) => `${m}.status in ${FINISHED} and ${m}.purge_after <= now()`,
};

/** Where the next batch starts, and how many index entries this batch looked at. */
const CURSOR = /* sql */ `(select count(*) from scanned)::int as scanned, last.after, last.after_id`;
/**
 * The last (key, id) scanned, as two aggregates rather than a sort of the batch. The key is
 * ISO 8601 in UTC with microseconds, read back exactly whatever the session's DateStyle.
 */
const FROM_LAST = /* sql */ `
  from (select max(key) as key from scanned) top
  cross join lateral (
    select to_char(top.key at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as after,
           (select max(c.id) from scanned c where c.key = top.key)::text as after_id
  ) last`;

export interface BatchParams extends Record<string, unknown> {
  /** Keyset cursor: the sort key of the last top the previous batch looked at. */
  after: string;
  after_id: string;
}

/** Before the first batch: every key is after this one. */
export const CURSOR_START = { after: '-infinity', after_id: '0' } as const;

/**
 * One batch of the retention sweep: delete the trees among the next @batch_size due tops.
 * Returns one row: the cursor, and what was deleted per queue and status.
 */
export const deleteDueTrees = defineSizedQuery<BatchParams>(
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
export const lockDueTrees = defineSizedQuery<BatchParams>(
  'lockDueTrees',
  /* sql */ `
  with ${DUE.scanned},
  ${LOCKED_TREES(DUE, 'array(select id from scanned)')}
  select ${CURSOR},
         coalesce((select array_agg(id::text) from targets), '{}') as ids
  ${FROM_LAST}`,
);

export const deleteJobsById = defineQuery<{ ids: string[] }>(
  'deleteJobsById',
  /* sql */ `
  with ${removeJobs([{ name: 'by_id', clause: 'where j.id = any(@ids::bigint[])' }])}
  select queue, status, count(*)::int as n from removed group by queue, status`,
);

/** Checkpoints of many jobs at once (for the archive hook). */
export const checkpointsOfJobs = defineQuery<{ ids: string[] }>(
  'checkpointsOfJobs',
  /* sql */ `
  select job_id::text as job_id, name, kind, output, created_at from /*schema*/checkpoints
   where job_id = any(@ids::bigint[]) order by job_id, created_at, name`,
);

/** Signals of many jobs at once (for the archive hook). */
export const signalsOfJobs = defineQuery<{ ids: string[] }>(
  'signalsOfJobs',
  /* sql */ `
  select id::text as id, job_id::text as job_id, name, payload, created_at, consumed_at, consumed_by, purge_after
    from /*schema*/signals where job_id = any(@ids::bigint[]) order by job_id, id`,
);

/** What a full sweep would delete now, per queue and status (dry run). */
export const previewDueTrees = defineQuery(
  'previewDueTrees',
  /* sql */ `
  with ${DOOMED_JOBS}
  select j.queue, j.status, count(*)::int as n from /*schema*/jobs j
   where j.id in (select id from doomed)
   group by j.queue, j.status order by j.queue, j.status`,
);

/** A consumed signal `s` past its own window, of a job in a tree no hold keeps. */
const SIGNAL_DUE = (s: string) => /* sql */ `${s}.purge_after <= now() and ${s}.consumed_at is not null
     and not exists (select 1 from /*schema*/jobs sj
                      where sj.id = ${s}.job_id and ${TREE_HELD('coalesce(sj.root_id, sj.id)')})`;

/** Consumed signals past their own window (R6), behind the gate. Pending signals never match. */
export const deleteConsumedSignals = defineSizedQuery(
  'deleteConsumedSignals',
  /* sql */ `
  with ${GATE},
  doomed as (
    select s.id from /*schema*/signals s
     where ${SIGNAL_DUE('s')} and ${GATE_OPEN}
     order by s.purge_after
     limit @batch_size
       for update of s skip locked
  ),
  deleted as (delete from /*schema*/signals s where s.id = any(array(select id from doomed)) returning s.id)
  select (select count(*) from deleted)::int as n, ${GATE_STATE}`,
);

/** Consumed signals a full pass would delete on their own window (not with their job). */
export const countConsumedSignalsDue = defineQuery(
  'countConsumedSignalsDue',
  /* sql */ `
  with ${DOOMED_JOBS}
  select count(*)::int as n from /*schema*/signals s
   where ${SIGNAL_DUE('s')} and s.job_id not in (select id from doomed)`,
);

/** Expired unique locks (R8), behind the gate. A lock that expired is replaceable at enqueue time anyway. */
export const deleteExpiredUniqueLocks = defineSizedQuery(
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
export const countExpiredUniqueLocks = defineQuery(
  'countExpiredUniqueLocks',
  /* sql */ `
  with ${DOOMED_JOBS}
  select count(*)::int as n from /*schema*/unique_locks u
   where u.expires_at <= now() and u.job_id not in (select id from doomed)`,
);

export const recordSweep = defineQuery<{
  kind: string;
  started_at: Date;
  jobs: number;
  signals: number;
  unique_locks: number;
  detail: string;
  error: string | null;
  keep: number;
}>(
  'recordSweep',
  /* sql */ `
  with recorded as (
    insert into /*schema*/sweeps (kind, started_at, finished_at, jobs, signals, unique_locks, detail, error)
    values (@kind, @started_at::timestamptz, now(), @jobs, @signals, @unique_locks, @detail::jsonb, @error)
    returning id
  ),
  -- the history bounds itself: only the newest @keep records of each kind stay
  trimmed as (
    delete from /*schema*/sweeps s
     where s.kind = @kind
       and s.id <= (select id from /*schema*/sweeps where kind = @kind order by id desc offset @keep limit 1)
    returning s.id
  )
  select (select id::text from recorded) as id, (select count(*) from trimmed)::int as trimmed`,
);

export const listSweeps = defineQuery<{ limit: number; kind: string | null }>(
  'listSweeps',
  /* sql */ `
  select id::text as id, kind, started_at, finished_at, jobs, signals, unique_locks, detail, error
    from /*schema*/sweeps
   where @kind::text is null or kind = @kind::text
   order by started_at desc, id desc limit @limit`,
);

/**
 * Manual purge (R10): a flat cutoff on finished_at that ignores frozen windows but keeps
 * R1 (only finished jobs), R3 (whole trees: every member finished before the cutoff, in
 * one of the listed statuses), R4 (no member pinned by a live unique lock) and holds.
 * Same shape as the sweep, driven by the finished_at index.
 */
const CUTOFF = /* sql */ `now() - @older_than_seconds * interval '1 second'`;

const PURGE: BatchRules = {
  scanned: /* sql */ `scanned as materialized (
    select r.id, r.finished_at as key from /*schema*/jobs r
     where r.finished_at <= ${CUTOFF}
       and (r.finished_at, r.id) > (@after::timestamptz, @after_id::bigint)
     order by r.finished_at, r.id
     limit @batch_size
  )`,
  keyColumn: 'finished_at',
  top: (r) => `${r}.root_id is null
     and ${r}.finished_at <= ${CUTOFF}
     and ${r}.status = any(@statuses::text[])
     and (@queue::text is null or ${r}.queue = @queue::text)
     and ${TOP_FREE(r)}`,
  memberKeeps: (m) => `(${m}.finished_at is null
     or ${m}.finished_at > ${CUTOFF}
     or ${m}.status <> all(@statuses::text[])
     or ${PINNED(m)}
     or ${QUEUE_HELD(m)})`,
  memberStill: (m) => `${m}.status = any(@statuses::text[]) and ${m}.finished_at <= ${CUTOFF}`,
};

/** A top that the purge removes with its whole tree, for counting. */
const PURGE_FILTER = /* sql */ `${PURGE.top('r')}
     and not exists (select 1 from /*schema*/jobs m where m.root_id = r.id and ${PURGE.memberKeeps('m')})`;

export interface PurgeParams extends Record<string, unknown> {
  queue: string | null;
  statuses: string[];
  older_than_seconds: number;
}

export const purgeFinished = defineSizedQuery<PurgeParams & BatchParams>(
  'purgeFinished',
  /* sql */ `
  with ${BATCH(PURGE)}
  select ${CURSOR}, ${GATE_STATE}, (select count(*) from removed)::int as n
  ${FROM_LAST}`,
);

export const countPurgeable = defineQuery<PurgeParams>(
  'countPurgeable',
  /* sql */ `
  with tops as (select r.id from /*schema*/jobs r where ${PURGE_FILTER})
  select count(*)::int as n from /*schema*/jobs j
   where j.id in (select id from tops) or j.root_id in (select id from tops)`,
);

/**
 * Reclaim the space of deleted rows. Autovacuum never runs in embedded PGlite, so the
 * sweep runs this there after deleting; it cannot run inside a transaction.
 */
export const vacuumSweptTables = defineQuery(
  'vacuumSweptTables',
  /* sql */ `vacuum (analyze) /*schema*/jobs, /*schema*/checkpoints, /*schema*/signals,
    /*schema*/unique_locks, /*schema*/schedule_fires`,
);
