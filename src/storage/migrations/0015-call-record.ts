/**
 * What a workflow's run did, in order, so that a replay can tell when the code no longer
 * matches it (the determinism guard); the code version each job was added under; and the job
 * a fork was made from.
 *
 * `checkpoints.seq` is the call's place in the run (1 for the first workflow call): steps,
 * sleeps and waits keep it on their own checkpoint; a child's start and a patch (`ctx.patched`)
 * get a checkpoint of their own (kinds `child` and `patch`). Rows written before this
 * migration have none and are not checked. The rows leave with their job as before (the one
 * removal path, sql/job-removal.ts).
 *
 * `jobs.version` is the queue's `version` option where the job was added (null without one),
 * so that the in-flight jobs of an old version can be found.
 *
 * `jobs.forked_from` is the job a `tm.forkJob` copy was made from: a pointer for the lineage
 * shown on both job pages, not a hold (the original may be deleted by retention first, and the
 * fork is its own tree). Its partial index serves the original's list of forks and costs a job
 * that is not a fork nothing.
 */
export const name = 'call-record';

export const sql = /* sql */ `
alter table /*schema*/checkpoints add column seq integer;
alter table /*schema*/jobs add column version text;
alter table /*schema*/jobs add column forked_from bigint;
create index jobs_forked_from_idx on /*schema*/jobs (forked_from) where forked_from is not null;
`;
