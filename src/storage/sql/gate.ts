/**
 * The retention gate: how a deleting statement is ordered against the operator's pause
 * and holds, in the statement itself.
 *
 * Every deletion locks the one `retention_control` row FOR SHARE before it deletes a row;
 * pausing, resuming and placing a hold update that row and raise its `version`. So a pause
 * or a hold waits for the deletions in progress, and a deletion that starts later sees it.
 * One case needs care: a statement takes its snapshot before its own locks, so a pause or
 * a hold can commit after the snapshot and before the lock. A locking read returns the
 * row's newest version, while a plain read returns the snapshot's: when their `version`s
 * differ, the statement's view of the holds is stale and it deletes nothing (`fresh` is
 * false, and the caller runs the batch again with a new snapshot). When they agree, every
 * hold and the pause switch the statement read are current, and none can change before it
 * commits. `paused` is read from the newest version.
 *
 * Use: put GATE first among a statement's CTEs, and GATE_OPEN in the WHERE of each
 * data-modifying CTE (as an InitPlan, it runs, and takes the lock, before the first row is
 * deleted); return GATE_STATE in the result.
 */
export const GATE = /* sql */ `gate as materialized (
    select c.paused, c.reason, c.paused_at,
           c.version = (select s.version from /*schema*/retention_control s where s.id = 1) as fresh
      from /*schema*/retention_control c
     where c.id = 1
       for share of c
  )`;

/** True when the statement may delete: not paused, and its snapshot saw the current holds. */
export const GATE_OPEN = /* sql */ `coalesce((select not g.paused and g.fresh from gate g), false)`;

/** The columns of GATE_STATE. */
export interface GateRow {
  paused: boolean | null;
  fresh: boolean | null;
  paused_reason: string | null;
  paused_at: Date | null;
}

/** The gate's columns for the result: `paused`, `fresh`, and the pause's reason and time. */
export const GATE_STATE = /* sql */ `(select g.paused from gate g) as paused,
         (select g.fresh from gate g) as fresh,
         (select g.reason from gate g) as paused_reason,
         (select g.paused_at from gate g) as paused_at`;
