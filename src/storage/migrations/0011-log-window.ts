/**
 * A log line's own window (`retention.logsAfterSeconds`): `purge_after` is when the line
 * leaves on its own, set from its job's frozen windows when it is written and again when a
 * policy is applied to history; null (no window) keeps it as long as its job. The partial
 * index serves the sweep's walk of due lines and costs nothing for lines without a window.
 */
export const name = 'log-window';

export const sql = /* sql */ `
alter table /*schema*/job_logs add column purge_after timestamptz;
create index job_logs_purge_idx on /*schema*/job_logs (purge_after) where purge_after is not null;
`;
