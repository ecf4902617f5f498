import { defineQuery, defineSizedQuery, type NoParams, type NoRows } from './define-query.js';
import { GATE, GATE_OPEN, GATE_STATE, type GateRow } from './gate.js';

/*
 * Rate limiters (migration 8): their definitions, the buckets' state and the claim's gate,
 * take_limiter_tokens. A bucket row is GCRA's `tat`, the moment the bucket is full again.
 */

/** A limiter as stored. */
export interface LimiterRow {
  name: string;
  limit_count: number;
  period_seconds: number;
  burst: number;
  /** Seconds one token stands for: limiter_spacing. */
  spacing_seconds: number;
  /** Buckets that are not full (one per key in use). */
  buckets: number;
  /** Jobs held back by the limiter, waiting for their turn. */
  waiting: number;
}

/** One bucket's state now, read for limiterStatus; tokens are whole ones. */
export interface BucketRow extends LimiterRow {
  tokens: number;
  next_token_at: Date | null;
  full_at: Date | null;
}

/** Define a limiter, or change one: its buckets keep their state. */
export const upsertLimiter = defineQuery<
  { name: string; limit_count: number; period_seconds: number; burst: number },
  NoRows
>(
  'upsertLimiter',
  /* sql */ `
  insert into /*schema*/limiters (name, limit_count, period_seconds, burst)
  values (@name, @limit_count::int, @period_seconds::float8, @burst::int)
  on conflict (name) do update
     set limit_count = excluded.limit_count, period_seconds = excluded.period_seconds,
         burst = excluded.burst, updated_at = now()`,
);

/** Delete a limiter and its buckets; its name, when it existed. */
export const deleteLimiter = defineQuery<{ name: string }, { name: string }>(
  'deleteLimiter',
  /* sql */ `delete from /*schema*/limiters where name = @name returning name`,
);

/** Columns of LimiterRow for the limiter `l`; `heldKey` narrows the jobs waiting to one key's. */
const limiterColumns = (heldKey: string) => /* sql */ `l.name, l.limit_count, l.period_seconds, l.burst,
         extract(epoch from /*schema*/limiter_spacing(l.period_seconds, l.limit_count))::float8 as spacing_seconds,
         (select count(*) from /*schema*/limiter_buckets b
           where b.limiter = l.name and b.tat > now())::int as buckets,
         (select count(*) from /*schema*/jobs j
           where j.held_by = l.name${heldKey} and j.status in ('pending', 'retry', 'waiting'))::int as waiting`;

/** Every limiter, by name. */
export const listLimiters = defineQuery<NoParams, LimiterRow>(
  'listLimiters',
  /* sql */ `select ${limiterColumns('')} from /*schema*/limiters l order by l.name`,
);

/**
 * One bucket of a limiter now (@key '' for a limiter without a key): its whole tokens, when the
 * next one comes and when it is full. No row when the limiter does not exist.
 */
export const limiterBucket = defineQuery<{ name: string; key: string }, BucketRow>(
  'limiterBucket',
  /* sql */ `
  select ${limiterColumns(' and j.held_key = @key')},
         s.tokens::int as tokens,
         case when s.tokens < l.burst + 1
              then b.tat - (l.burst + 1 - s.tokens - 1) * s.spacing end as next_token_at,
         case when b.tat > now() then b.tat end as full_at
    from /*schema*/limiters l
    left join /*schema*/limiter_buckets b on b.limiter = l.name and b.key = @key
   cross join lateral (
     select /*schema*/limiter_spacing(l.period_seconds, l.limit_count) as spacing
   ) sp
   cross join lateral (
     -- none while the bucket is in debt (emptied past its refill by retryAfter's drainLimiter)
     select sp.spacing,
            greatest(floor(l.burst + 1 - extract(epoch from greatest(b.tat, now()) - now())
                                         / extract(epoch from sp.spacing)), 0) as tokens
   ) s
   where l.name = @name`,
);

/** When grant_limiter_tokens granted a whole claim at once, and the guard its jobs start within. */
export interface GrantRow {
  /** Epoch ms, on the database's clock. */
  granted_at: number;
  guard: number | null;
  /**
   * The database's clock when the statement arrived (epoch ms): the grant came `granted_at -
   * started` after that, whatever befell its rows on their way back.
   */
  started: number;
}

/**
 * Grant a claim's jobs all at once when every bucket holds what they ask in all and none has
 * turns booked (grant_limiter_tokens, migration 8); no row when it did not.
 */
export const grantLimiterTokens = defineQuery<
  { names: string[]; keys: string[]; totals: number[]; held: string[] },
  GrantRow
>(
  'grantLimiterTokens',
  /* sql */ `
  select date_part('epoch', g.granted_at) * 1000 as granted_at, g.guard,
         date_part('epoch', statement_timestamp()) * 1000 as started
    from /*schema*/grant_limiter_tokens(@names::text[], @keys::text[], @totals::int[], @held::bigint[]) g`,
);

/** A verdict of take_limiter_tokens on one claimed job (see migration 8). */
export interface TokenVerdictRow {
  job_id: string;
  verdict: 'granted' | 'held' | 'missing' | 'refused';
  detail: string | null;
  /** For a held job: when it is due again; for a granted one: when it was granted (epoch ms). */
  turn: number | null;
  /** The database's clock when the statement arrived (epoch ms): a grant came `turn - started` after it. */
  started: number;
  /** For a granted job: the seconds within which it must start (null: no limit, it took nothing). */
  guard: number | null;
}

/**
 * Take the tokens of claimed jobs job by job, in claim order: @requests is a JSON array of
 * { id, token, held, limits: [{ name, key, cost }] }. Jobs held back go back as they were, due
 * at their turn, in the same statement.
 */
export const takeLimiterTokens = defineQuery<{ requests: string }, TokenVerdictRow>(
  'takeLimiterTokens',
  /* sql */ `
  select t.job_id::text as job_id, t.verdict, t.detail, date_part('epoch', t.turn) * 1000 as turn, t.guard,
         date_part('epoch', statement_timestamp()) * 1000 as started
    from /*schema*/take_limiter_tokens(@requests::jsonb) t`,
);

/**
 * Empty the buckets @buckets (a JSON array of { name, key }) until @seconds from now: no job
 * of theirs starts before then, and one may at that moment (`ctx.retryAfter` with
 * `drainLimiter`). A bucket already emptier keeps its state.
 */
export const drainBuckets = defineQuery<{ buckets: string; seconds: number }, NoRows>(
  'drainBuckets',
  /* sql */ `
  insert into /*schema*/limiter_buckets as b (limiter, key, tat, booked)
  select x.name, x.key, d.until, d.until
    from jsonb_to_recordset(@buckets::jsonb) as x(name text, key text)
    join /*schema*/limiters l on l.name = x.name
   cross join lateral (
     select now() + @seconds::float8 * interval '1 second'
            + l.burst * /*schema*/limiter_spacing(l.period_seconds, l.limit_count) as until
   ) d
   order by 1, 2
  on conflict (limiter, key) do update
     set tat = greatest(b.tat, excluded.tat), booked = greatest(b.booked, excluded.tat)`,
);

/**
 * Full buckets, behind the gate: a bucket whose booked turns have passed holds every token,
 * the same as no row, so deleting it changes nothing a job waits on.
 */
export const deleteFullBuckets = defineSizedQuery<NoParams, GateRow & { n: number }>(
  'deleteFullBuckets',
  /* sql */ `
  with ${GATE},
  doomed as (
    select limiter, key from /*schema*/limiter_buckets
     where booked <= now() and ${GATE_OPEN}
     order by booked
     limit @batch_size
       for update skip locked
  ),
  deleted as (
    delete from /*schema*/limiter_buckets b
     using doomed d
     where b.limiter = d.limiter and b.key = d.key and b.booked <= now()
    returning 1
  )
  select (select count(*) from deleted)::int as n, ${GATE_STATE}`,
);
