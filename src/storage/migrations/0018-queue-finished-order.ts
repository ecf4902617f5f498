/**
 * A queue's finished jobs in the exact order its lists read them, `(finished_at, id)`: the
 * queue page's finished list and the queue stream's cursor order by both. Without `id` the walk
 * needed an incremental sort on top, and once jobs rows grew wider the planner rated a backward
 * walk of `jobs_finished_idx` filtering by queue as cheaper, which reads every other queue's
 * finished jobs for a rare one. Same entries, one column more; a job still enters it once, with
 * the write that finishes it.
 */
export const name = 'queue-finished-order';

export const sql = /* sql */ `
drop index /*schema*/jobs_queue_finished_idx;
create index jobs_queue_finished_idx on /*schema*/jobs (queue, finished_at, id) where finished_at is not null;
`;
