import type { StoredQueueOptions } from '../../model/queue.js';
import { defineQuery, type NoParams, type NoRows } from './define-query.js';

/**
 * A queue as stored: its options and whether it is paused. Each option may be absent: a
 * queue whose definition was never stored here (or was stored by an older version) has
 * fewer, and readers apply the defaults.
 */
export interface StoredQueue {
  name: string;
  options: Partial<StoredQueueOptions>;
  paused: boolean;
}

/** A queue's options and its definer's engine policy (`engine_retention`, migration 19). */
export const upsertQueue = defineQuery<{ name: string; options: string; engine_retention: string }, NoRows>(
  'upsertQueue',
  /* sql */ `
  insert into /*schema*/queues (name, options, engine_retention)
  values (@name, @options::jsonb, @engine_retention::jsonb)
  on conflict (name) do update
    set options = excluded.options, engine_retention = excluded.engine_retention, updated_at = now()
   where /*schema*/queues.options is distinct from excluded.options
      or /*schema*/queues.engine_retention is distinct from excluded.engine_retention`,
);

export const getQueue = defineQuery<{ name: string }, StoredQueue>(
  'getQueue',
  /* sql */ `select name, options, paused from /*schema*/queues where name = @name`,
);

export const listQueues = defineQuery<NoParams, StoredQueue>(
  'listQueues',
  /* sql */ `select name, options, paused from /*schema*/queues order by name`,
);

export const setQueuePaused = defineQuery<
  { name: string; paused: boolean; channel: string },
  { name: string }
>(
  'setQueuePaused',
  /* sql */ `
  with changed as (
    update /*schema*/queues set paused = @paused, updated_at = now() where name = @name returning name, paused
  ),
  nudged as (select count(pg_notify(@channel, 'j:' || name)) as n from changed where not paused)
  select changed.name from changed cross join nudged`,
);
