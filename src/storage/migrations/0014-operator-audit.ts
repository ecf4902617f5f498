/**
 * The audit of operator actions: one row per retry, cancel, delete, purge, hold, pause,
 * resume, run-now, schedule or key control (who, from where, what, how many rows). `at` is the
 * database's clock; the index on it serves the time filters and the retention pass's walk of
 * rows past the audit's own window. Pages are keyset by id, newest first.
 */
export const name = 'operator-audit';

export const sql = /* sql */ `
create table /*schema*/audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  actor text not null,
  source text not null check (source in ('api', 'dashboard', 'cli')),
  action text not null,
  target jsonb not null default '{}'::jsonb,
  rows integer not null default 0
);
create index audit_log_at_idx on /*schema*/audit_log (at);
`;
