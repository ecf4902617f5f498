/**
 * Debounce and throttle by key (`addJob({ debounce })`, `addJob({ throttle })`): the key a
 * job was added under, `debounce:<key>` or `throttle:<key>`, on the job's own row. An add
 * with such a key reads the newest job of its queue and key (this index, one entry) under a
 * transaction-scoped advisory lock of the queue and key, so racing adds in any number of
 * processes see each other's jobs, and either folds into that job or adds the next one.
 *
 * Nothing else is stored: the window of a debounce is the newest job's creation time, the
 * period of a throttle its start time, and the key leaves with the row, by the one removal
 * path, when the job's retention ends.
 */
export const name = 'debounce-throttle';

export const sql = /* sql */ `
alter table /*schema*/jobs add column fold_key text;
create index jobs_fold_idx on /*schema*/jobs (queue, fold_key, id desc) where fold_key is not null;
`;
