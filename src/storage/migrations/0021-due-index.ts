/**
 * The jobs that become due later than they were written: delayed jobs, retries after their
 * backoff and parked workflows. The maintenance tick reads it to nudge the queues whose work
 * has just come due and to promote due retries; without it both read every row of `jobs`,
 * finished history included, on every tick. A job that is due when it is added is not in it
 * (its enqueue notifies its queue at once), so the drain's inserts and claims write no entry.
 */
export const name = 'due-index';

export const sql = /* sql */ `
create index jobs_due_idx on /*schema*/jobs (run_at)
 where status in ('retry', 'waiting') or (status = 'pending' and run_at > created_at);
`;
