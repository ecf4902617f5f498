/**
 * Each registration of a worker carries a token of its own (`instance`), so a process that
 * reuses a worker id can be told apart from the one that holds it: a stop deletes only its
 * own row, a beat writes only its own, and a start under the id of a live worker of another
 * process is refused. Rows written before this migration have the empty token.
 */
export const name = 'worker-instance';

export const sql = /* sql */ `
alter table /*schema*/workers add column instance text not null default '';
`;
