/**
 * Workers announce themselves: one row per running worker, written when it starts, its beat
 * and running count refreshed on the lock-extension cadence, deleted when it stops. A worker
 * killed without a stop leaves its row; once the beat is older than three beat intervals it
 * is shown as gone, and the maintenance tick deletes it an hour after that.
 *
 * `settings` holds what the worker actually runs (its retention and unique-lock sweeps, or
 * false, and its tick interval), so the dashboard describes the workers and not itself.
 */
export const name = 'workers';

export const sql = /* sql */ `
create table /*schema*/workers (
  id text primary key,
  host text not null,
  pid integer not null,
  -- null: every queue with a handler in the worker's process
  queues text[],
  concurrency integer not null,
  settings jsonb not null,
  heartbeat_seconds double precision not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  running integer not null default 0
);
create index workers_heartbeat_idx on /*schema*/workers (heartbeat_at);
`;
