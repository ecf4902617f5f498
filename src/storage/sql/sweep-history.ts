import type { SweepBreakdown, SweepRecord } from '../../model/sweep.js';
import { defineQuery } from './define-query.js';

/** The sweep history: one row per finished sweep, the newest few hundred of each kind. */

/** What a sweep record keeps besides its counts (its `detail` column). */
export interface SweepDetail {
  byQueue?: SweepBreakdown[];
  logLines?: number;
  batches?: number;
  durationMs?: number;
  paused?: boolean;
}

/** A sweep record as stored. */
export interface StoredSweep {
  id: string;
  kind: SweepRecord['kind'];
  started_at: Date;
  finished_at: Date;
  jobs: number;
  signals: number;
  unique_locks: number;
  detail: SweepDetail | null;
  error: string | null;
}

export const recordSweep = defineQuery<
  {
    kind: string;
    started_at: Date;
    jobs: number;
    signals: number;
    unique_locks: number;
    detail: string;
    error: string | null;
    keep: number;
  },
  { id: string | null; trimmed: number }
>(
  'recordSweep',
  /* sql */ `
  with recorded as (
    insert into /*schema*/sweeps (kind, started_at, finished_at, jobs, signals, unique_locks, detail, error)
    values (@kind, @started_at::timestamptz, now(), @jobs, @signals, @unique_locks, @detail::jsonb, @error)
    returning id
  ),
  -- the history bounds itself: only the newest @keep records of each kind stay
  trimmed as (
    delete from /*schema*/sweeps s
     where s.kind = @kind
       and s.id <= (select id from /*schema*/sweeps where kind = @kind order by id desc offset @keep limit 1)
    returning s.id
  )
  select (select id::text from recorded) as id, (select count(*) from trimmed)::int as trimmed`,
);

export const listSweeps = defineQuery<{ limit: number; kind: string | null }, StoredSweep>(
  'listSweeps',
  /* sql */ `
  select id::text as id, kind, started_at, finished_at, jobs, signals, unique_locks, detail, error
    from /*schema*/sweeps
   where @kind::text is null or kind = @kind::text
   order by started_at desc, id desc limit @limit`,
);
