import { defineQuery, type NoRows } from './define-query.js';

/*
 * Operators' settings per concurrency key (key_settings, migration 7) and the read of a
 * queue's keys. A settings row exists only while it holds an override or a pause: clearing
 * the last of them deletes it, so no idle key leaves a row behind.
 */

type KeyParams = { queue: string; key: string; channel: string };

/** Wake the queue's workers: a raised limit or a resumed key may have made jobs claimable. */
const NUDGE = `(select count(pg_notify(@channel, 'j:' || @queue)))`;

/** Set a key's override concurrency; returns the row (always one). */
export const setKeyLimit = defineQuery<KeyParams & { concurrency: number }, NoRows>(
  'setKeyLimit',
  /* sql */ `
  insert into /*schema*/key_settings (queue, key, concurrency)
  select @queue, @key, @concurrency::int from ${NUDGE} nudged
  on conflict (queue, key) do update set concurrency = excluded.concurrency, updated_at = now()`,
);

/** Drop a key's override: the queue's rule applies again (a paused key keeps its pause). */
export const clearKeyLimit = defineQuery<KeyParams, NoRows>(
  'clearKeyLimit',
  /* sql */ `
  with dropped as (
    delete from /*schema*/key_settings where queue = @queue and key = @key and not paused
  )
  update /*schema*/key_settings set concurrency = null, updated_at = now()
    from ${NUDGE} nudged
   where queue = @queue and key = @key and paused`,
);

/** Stop the key's jobs from starting (running ones finish). */
export const pauseKey = defineQuery<Omit<KeyParams, 'channel'>, NoRows>(
  'pauseKey',
  /* sql */ `
  insert into /*schema*/key_settings (queue, key, paused) values (@queue, @key, true)
  on conflict (queue, key) do update set paused = true, updated_at = now()`,
);

/** Let a paused key's jobs start again; a row left with no override goes. */
export const resumeKey = defineQuery<KeyParams, NoRows>(
  'resumeKey',
  /* sql */ `
  with dropped as (
    delete from /*schema*/key_settings where queue = @queue and key = @key and concurrency is null
  )
  update /*schema*/key_settings set paused = false, updated_at = now()
    from ${NUDGE} nudged
   where queue = @queue and key = @key and concurrency is not null`,
);

/** A row of listKeys, before its limit is mapped. */
export interface KeyRow {
  key: string;
  tier: string | null;
  active: number;
  pending: number;
  key_limit: number | null;
  paused: boolean;
  oldest_pending_at: Date | null;
}

/**
 * A queue's keys that have unfinished jobs or settings, in key order after @after, @limit of
 * them; with @blocked, only keys whose pending jobs cannot start now (paused, or at their
 * limit). @rule is the queue's stored keys rule (or null), which gives each key's limit.
 */
export const listKeys = defineQuery<
  { queue: string; after: string | null; limit: number; blocked: boolean; rule: string | null },
  KeyRow
>(
  'listKeys',
  /* sql */ `
  with keyed as (
    select j.key,
           count(*) filter (where j.status = 'active')::int as active,
           count(*) filter (where j.status in ('pending', 'retry'))::int as pending,
           min(j.run_at) filter (where j.status in ('pending', 'retry')) as oldest_pending_at,
           (array_agg(j.tier order by j.id desc))[1] as tier
      from /*schema*/jobs j
     where j.queue = @queue and j.key is not null
       and j.status in ('pending', 'active', 'retry', 'waiting', 'paused')
       and (@after::text is null or j.key > @after::text)
     group by j.key
  ),
  every_key as (
    select key from keyed
    union
    select key from /*schema*/key_settings
     where queue = @queue and (@after::text is null or key > @after::text)
  ),
  described as (
    select e.key, k.tier, coalesce(k.active, 0) as active, coalesce(k.pending, 0) as pending,
           coalesce(s.concurrency, (@rule::jsonb -> 'tiers' ->> k.tier)::int,
                    (@rule::jsonb ->> 'concurrency')::int) as key_limit,
           coalesce(s.paused, false) as paused, k.oldest_pending_at
      from every_key e
      left join keyed k on k.key = e.key
      left join /*schema*/key_settings s on s.queue = @queue and s.key = e.key
  )
  select * from described d
   where not @blocked::boolean
      or d.pending > 0 and (d.paused or d.active >= d.key_limit)
   order by d.key
   limit @limit`,
);
