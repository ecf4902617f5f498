/**
 * SQL fragments for retention holds, shared by every statement that deletes jobs or their
 * signals. A hold keeps a whole tree: it names jobs (the link table stores each one's tree
 * top), or a queue (every tree with a member in it).
 *
 * Each test is a probe of one index per row, written as a scalar subquery with LIMIT 1
 * (see PROBE): an EXISTS inside an OR lets PostgreSQL read the whole table once into a
 * hash instead, which with thousands of holds costs every batch that table.
 */

/** True when `from … where …` has a row; always one index probe per evaluation, never a hash of the table. */
export const PROBE = (fromWhere: string) => /* sql */ `((select true from ${fromWhere} limit 1) is not null)`;

/**
 * Whether any queue hold, or any hold naming jobs, exists. Uncorrelated, so PostgreSQL
 * evaluates each once per statement: with no hold in place, no job pays a probe. Written
 * as min() so that it is one index entry read, never a scan past dead rows.
 */
const ANY_QUEUE_HOLD = /* sql */ `((select min(queue) from /*schema*/retention_holds where queue is not null) is not null)`;
const ANY_HOLD_LINK = /* sql */ `((select min(tree_id) from /*schema*/retention_hold_jobs) is not null)`;

/** A hold names a job of the tree whose top's id is `tree`. */
export const TREE_LINKED = (tree: string) =>
  `(${ANY_HOLD_LINK} and ${PROBE(`/*schema*/retention_hold_jobs hl where hl.tree_id = ${tree}`)})`;

/** Job `job` is in a held queue. */
export const QUEUE_HELD = (job: string) =>
  /* sql */ `(${ANY_QUEUE_HOLD} and ${PROBE(`/*schema*/retention_holds hq where hq.queue = ${job}.queue`)})`;

/** The tree whose top's id is `tree` is held: named by a hold, or with a member in a held queue. */
export const TREE_HELD = (tree: string) => /* sql */ `(${TREE_LINKED(tree)}
  or (${ANY_QUEUE_HOLD} and exists (
        select 1 from /*schema*/jobs hm
         where (hm.id = ${tree} or hm.root_id = ${tree})
           and ${PROBE(`/*schema*/retention_holds hq where hq.queue = hm.queue`)})))`;
