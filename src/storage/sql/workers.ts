import type { WorkerSettings } from '../../model/worker.js';
import { defineQuery, type NoParams } from './define-query.js';

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
  /** This registration's own token: a row of the same id with another token is another process's. */
  instance: string;
  /** The token of a row judged dead (its process is gone from this host): taken over, as a gone row is. */
  replaces: string | null;
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
 * Register, or take over a row of the same id that is this registration's own, gone (no beat
 * for three intervals), or that of a process known to be dead (a worker restarted with a
 * fixed `id`). No row back: the id is held by a live worker of another process.
 */
export const registerWorker = defineQuery<RegisterWorkerParams, { started_at: Date }>(
  'registerWorker',
  /* sql */ `
  insert into /*schema*/workers as w
         (id, instance, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running)
  values (@id, @instance, @host, @pid, @queues::text[], @concurrency, @settings::jsonb, @heartbeat_seconds,
          coalesce(@started_at::timestamptz, now()), now(), 0)
  on conflict (id) do update
     set instance = excluded.instance, host = excluded.host, pid = excluded.pid, queues = excluded.queues,
         concurrency = excluded.concurrency, settings = excluded.settings,
         heartbeat_seconds = excluded.heartbeat_seconds, started_at = excluded.started_at,
         heartbeat_at = now(), running = 0
   where w.instance = excluded.instance
      or w.instance = @replaces::text
      or w.heartbeat_at < now() - ${GONE_AFTER_BEATS} * w.heartbeat_seconds * interval '1 second'
  returning started_at`,
);

/** Who holds a worker id: read when a registration was refused, to say by whom. */
export const readWorkerHolder = defineQuery<
  { id: string },
  { instance: string; host: string; pid: number; beat_seconds_ago: number; gone_after_seconds: number }
>(
  'readWorkerHolder',
  /* sql */ `
  select instance, host, pid,
         extract(epoch from now() - heartbeat_at)::float8 as beat_seconds_ago,
         (${GONE_AFTER_BEATS} * heartbeat_seconds)::float8 as gone_after_seconds
    from /*schema*/workers where id = @id`,
);

/** One beat: no row back means the row is gone (deleted as gone while the worker hung). */
export const beatWorker = defineQuery<{ id: string; instance: string; running: number }, { id: string }>(
  'beatWorker',
  /* sql */ `
  update /*schema*/workers set heartbeat_at = now(), running = @running
   where id = @id and instance = @instance returning id`,
);

/** A stop deletes its own row only: another process may have taken the id over since. */
export const unregisterWorker = defineQuery<{ id: string; instance: string }, { id: string }>(
  'unregisterWorker',
  /* sql */ `delete from /*schema*/workers where id = @id and instance = @instance returning id`,
);

export const listWorkers = defineQuery<{ limit: number }, StoredWorker>(
  'listWorkers',
  /* sql */ `
  select id, host, pid, queues, concurrency, settings, heartbeat_seconds, started_at, heartbeat_at, running,
         heartbeat_at < now() - ${GONE_AFTER_BEATS} * heartbeat_seconds * interval '1 second' as gone
    from /*schema*/workers
   order by gone, host, started_at, id
   limit @limit`,
);

/**
 * Live and gone workers counted, and the retention sweeps the live ones run, over every row:
 * not cut off by the listing's cap, however many gone rows there are.
 */
export const summarizeWorkers = defineQuery<
  NoParams,
  { live: number; gone: number; sweepers: number; intervals: number[]; batch_sizes: number[] }
>(
  'summarizeWorkers',
  /* sql */ `
  with w as (
    select settings -> 'sweep' as sweep,
           heartbeat_at < now() - ${GONE_AFTER_BEATS} * heartbeat_seconds * interval '1 second' as gone
      from /*schema*/workers
  )
  select count(*) filter (where not gone)::int as live,
         count(*) filter (where gone)::int as gone,
         count(*) filter (where not gone and jsonb_typeof(sweep) = 'object')::int as sweepers,
         coalesce(array_agg(distinct (sweep ->> 'intervalSeconds')::float8)
                    filter (where not gone and jsonb_typeof(sweep) = 'object'), '{}') as intervals,
         coalesce(array_agg(distinct (sweep ->> 'batchSize')::int)
                    filter (where not gone and jsonb_typeof(sweep) = 'object'), '{}') as batch_sizes
    from w`,
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

/**
 * Rows of gone workers beyond the newest `keep`, oldest first, in one bounded batch: however
 * many workers die at once, the table keeps a bounded number of gone rows.
 */
export const trimGoneWorkers = defineQuery<{ keep: number; limit: number }, { id: string }>(
  'trimGoneWorkers',
  /* sql */ `
  with gone as (
    select id from /*schema*/workers
     where heartbeat_at < now() - ${GONE_AFTER_BEATS} * heartbeat_seconds * interval '1 second'
     order by heartbeat_at desc, id desc
     offset @keep
     limit @limit
     for update skip locked
  )
  delete from /*schema*/workers w using gone where w.id = gone.id
  returning w.id`,
);
