import type { WorkerSettings } from '../../model/worker.js';
import { defineQuery } from './define-query.js';

/** A worker's row as stored, with whether its beat is overdue (judged by the database's clock). */
export interface StoredWorker {
  id: string;
  host: string;
  pid: number;
  queues: string[] | null;
  concurrency: number;
  settings: WorkerSettings;
  heartbeat_seconds: number;
  started_at: Date;
  heartbeat_at: Date;
  running: number;
  gone: boolean;
}

/** Beats missed before a worker counts as gone. */
const GONE_AFTER_BEATS = 3;

export type RegisterWorkerParams = {
  id: string;
  host: string;
  pid: number;
  queues: string[] | null;
  concurrency: number;
  settings: string;
  heartbeat_seconds: number;
  /** Null on the first start; a worker registering again (its row was lost) keeps its start. */
  started_at: Date | null;
};

/**
 * Register, or take over the row of the same id (a worker restarted with a fixed `id`): the
 * newest registration describes the process that runs under that id now.
 */
export const registerWorker = defineQuery<RegisterWorkerParams, { started_at: Date }>(
  'registerWorker',
  /* sql */ `
  insert into /*schema*/workers as w
         (id, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running)
  values (@id, @host, @pid, @queues::text[], @concurrency, @settings::jsonb, @heartbeat_seconds,
          coalesce(@started_at::timestamptz, now()), now(), 0)
  on conflict (id) do update
     set host = excluded.host, pid = excluded.pid, queues = excluded.queues,
         concurrency = excluded.concurrency, settings = excluded.settings,
         heartbeat_seconds = excluded.heartbeat_seconds, started_at = excluded.started_at,
         heartbeat_at = now(), running = 0
  returning started_at`,
);

/** One beat: no row back means the row is gone (deleted as gone while the worker hung). */
export const beatWorker = defineQuery<{ id: string; running: number }, { id: string }>(
  'beatWorker',
  /* sql */ `
  update /*schema*/workers set heartbeat_at = now(), running = @running where id = @id returning id`,
);

export const unregisterWorker = defineQuery<{ id: string }, { id: string }>(
  'unregisterWorker',
  /* sql */ `delete from /*schema*/workers where id = @id returning id`,
);

export const listWorkers = defineQuery<{ limit: number }, StoredWorker>(
  'listWorkers',
  /* sql */ `
  select id, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running,
         heartbeat_at < now() - ${GONE_AFTER_BEATS} * heartbeat_seconds * interval '1 second' as gone
    from /*schema*/workers
   order by host, started_at, id
   limit @limit`,
);

/**
 * Rows of workers gone for longer than `after_seconds`, in one bounded batch. The first test
 * of heartbeat_at finds the candidates by the index; the second is the exact rule per worker.
 */
export const deleteGoneWorkers = defineQuery<{ after_seconds: number; limit: number }, { id: string }>(
  'deleteGoneWorkers',
  /* sql */ `
  with gone as (
    select id from /*schema*/workers
     where heartbeat_at < now() - @after_seconds * interval '1 second'
       and heartbeat_at < now() - (${GONE_AFTER_BEATS} * heartbeat_seconds + @after_seconds) * interval '1 second'
     order by heartbeat_at
     limit @limit
     for update skip locked
  )
  delete from /*schema*/workers w using gone where w.id = gone.id
  returning w.id`,
);
