import { NEEDED, NO_NEW_DEPENDENTS } from './dependencies.js';
import { GATE, GATE_OPEN } from './gate.js';
import { PROBE, QUEUE_HELD, TREE_LINKED } from './held.js';
import { ANY_IN_SPAN, removeJobs } from './job-removal.js';
import { FINISHED } from './statuses.js';

/**
 * The shape every retention statement that deletes jobs in batches follows (BATCH, below),
 * the due-tree sweep (retention-sweep.ts) and the manual purge (retention-purge.ts) alike,
 * and the rules they share:
 *
 * 1. `scanned`: the next @batch_size entries of an index (purge_after, or finished_at for
 *    the purge) from a keyset cursor on. A plain ordered range scan with a limit, so the
 *    plan stays an index scan however the due set is estimated, and every entry is read
 *    once per pass even when its row is kept (a tree member, a pinned or held tree).
 * 2. `with_members`: the scanned tops that have tree members (one root_id index probe per
 *    entry). Most jobs are a tree of one and have none.
 * 3. `singles`: the scanned tops without members that qualify, deleted directly, found by
 *    primary key from the array of their ids: a join of the scanned set to `jobs` is planned
 *    from statistics, and on a table not yet analysed the planner drove it from a scan of
 *    every due row, once per batch. The delete's own row lock and recheck keep a row someone
 *    changed meanwhile: a retry sets its status and clears its purge time, a new finish
 *    writes a new one, so the recheck of "still finished, same key as in the statement's
 *    snapshot" (a probe by primary key, which reads the snapshot's version while the
 *    recheck reads the newest) fails and the row stays. So does a job that got a dependent
 *    after the snapshot (its `dependents` count moved: the snapshot's probe of NEEDED could
 *    not see the new edge). Another sweeper's delete makes it wait, then skip the row.
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
 * in its result; holds cannot change while it runs. It runs in a transaction opened by
 * openDeletionBatch (batch-plan.ts), which takes the gate before the statement's snapshot
 * and fixes the plan to index walks, whatever the statistics say.
 */

/**
 * Whether any unique lock is live; evaluated once per statement (one entry of the expiry
 * index, read by max()), so jobs pay no probe when none is.
 */
const ANY_LIVE_LOCK = /* sql */ `coalesce((select max(expires_at) from /*schema*/unique_locks) > now(), false)`;

/** A live unique lock on job `job` (rule R4): an index probe, however many locks are live. */
export const PINNED = (job: string) =>
  `(${ANY_LIVE_LOCK} and ${PROBE(`/*schema*/unique_locks u where u.job_id = ${job}.id and u.expires_at > now()`)})`;

/**
 * Job `m` is not due (rules R1, R2, R4): in flight, kept forever, not yet due, pinned, held,
 * or a dependency a dependent in flight still needs.
 */
export const NOT_DUE = (m: string) =>
  `(${m}.status not in ${FINISHED} or ${m}.purge_after is null or ${m}.purge_after > now() or ${PINNED(m)}
    or ${QUEUE_HELD(m)} or ${NEEDED(m)})`;

/** Top `r` is neither pinned, held nor needed by a dependent itself (its members are checked by NOT_DUE). */
export const TOP_FREE = (r: string) =>
  `not ${PINNED(r)} and not ${TREE_LINKED(`${r}.id`)} and not ${QUEUE_HELD(r)} and not ${NEEDED(r)}`;

/**
 * `condition` as a filter that no index can serve. The tops a batch deletes or locks are
 * found by id; their range condition on the batch's key (`purge_after <= now()`) would
 * otherwise let PostgreSQL 17 (PGlite) serve `key <= now() and id = any(…)` from the
 * (key, id) index, reading the whole due range for every batch. Their status test is one
 * too: with `status = any(…) and id = any(…)` PostgreSQL 17 read the (queue, status, id)
 * index instead of the primary key on a table never analysed, once the rules' probes (holds,
 * pins, dependents) made every row it filters look dear.
 */
export const FILTER_ONLY = (condition: string) => `(${condition}) is true`;

/** What a batch statement deletes by: see the shape above. */
export interface BatchRules {
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
export const LOCKED_TREES = (rules: BatchRules, from: string) => /* sql */ `
  candidates as materialized (
    select r.id from /*schema*/jobs r
     where r.id = any(${from})
       and ${rules.top('r')}
       and not exists (select 1 from /*schema*/jobs m where m.root_id = r.id and ${rules.memberKeeps('m')})
       and ${NO_NEW_DEPENDENTS('r')}
       for update of r skip locked
  ),
  members as materialized (
    select m.id, m.root_id, coalesce(${rules.memberStill('m')} and ${NO_NEW_DEPENDENTS('m')}, false) as ok
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
export const BATCH = (rules: BatchRules) => /* sql */ `
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
      clause: `where j.id = any(array(select id from scanned except select id from with_members))
       and (j.${rules.keyColumn}, j.dependents)
           = (select k.${rules.keyColumn}, k.dependents from /*schema*/jobs k where k.id = j.id)
       and ${rules.top('j')}
       and ${GATE_OPEN}`,
    },
    { name: 'tree_jobs', clause: `where j.id = any(array(select id from targets)) and ${GATE_OPEN}` },
  ])}`;

/** The columns of CURSOR: `after` and `after_id` are null when the batch scanned nothing. */
export interface CursorRow {
  scanned: number;
  after: string | null;
  after_id: string | null;
}

/** Where the next batch starts, and how many index entries this batch looked at. */
export const CURSOR = /* sql */ `(select count(*) from scanned)::int as scanned, last.after, last.after_id`;
/**
 * The last (key, id) scanned, as two aggregates rather than a sort of the batch. The key is
 * ISO 8601 in UTC with microseconds, read back exactly whatever the session's DateStyle.
 */
export const FROM_LAST = /* sql */ `
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
