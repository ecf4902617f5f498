/**
 * A queue's finished jobs in the order they finished: the queue page's charts walk it
 * backward from now and stop after a bounded number of rows. Partial, so jobs waiting or
 * running are not in it; a job enters it once, with the write that finishes it.
 */
export const name = 'queue-finished-index';

export const sql = /* sql */ `
create index jobs_queue_finished_idx on /*schema*/jobs (queue, finished_at) where finished_at is not null;
`;
