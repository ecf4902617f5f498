import type { AttemptEntry } from './admin.js';
import { defineQuery } from './define-query.js';

/** Most run-history rows one job keeps; later events are counted in the row after them. */
export const HISTORY_CAP = 1000;

/**
 * CTEs that append run-history events to `run_history`, for a statement that has just
 * written the outcome of runs. `source` is a query of the runs written, with columns
 * `job_id`, `attempt`, `note` (jsonb merged into the run event: its outcome, its error) and
 * `events` (a JSON array the worker built: `{ kind, at, endedAt?, worker?, detail? }`, its
 * `run` event first). A run without events adds nothing, so a plain job's outcome pays for
 * an empty CTE alone. The rows are numbered after the job's last one; past HISTORY_CAP, one
 * `dropped` row counts the rest. Sourced from the rows the statement updated, so a run that
 * lost its job writes no history.
 */
export function appendHistory(source: string): string {
  return /* sql */ `history_in as (${source}),
  history_events as (
    select h.job_id, h.attempt, h.note, e.value as event,
           coalesce((select max(x.seq) from /*schema*/run_history x where x.job_id = h.job_id), 0) + e.ord as seq,
           -- a run keeps at most HISTORY_CAP events in memory and counts the rest in a last one
           case when e.value ->> 'kind' = 'dropped' then (e.value -> 'detail' ->> 'count')::int else 1 end as weight
      from history_in h
     cross join lateral json_array_elements(h.events) with ordinality as e(value, ord)
     where h.events is not null
  ),
  history_written as (
    insert into /*schema*/run_history as h (job_id, seq, attempt, kind, at, ended_at, worker, detail)
    select job_id, seq::int, attempt, event ->> 'kind', (event ->> 'at')::timestamptz,
           case when event ->> 'kind' = 'run' then now() else (event ->> 'endedAt')::timestamptz end,
           event ->> 'worker',
           case when event ->> 'kind' = 'run' then coalesce((event -> 'detail')::jsonb, '{}') || note
                else (event -> 'detail')::jsonb end
      from history_events where seq <= ${HISTORY_CAP} and event ->> 'kind' <> 'dropped'
    union all
    select job_id, ${HISTORY_CAP + 1}, max(attempt), 'dropped', now(), null, null, jsonb_build_object('count', sum(weight))
      from history_events where seq > ${HISTORY_CAP} or event ->> 'kind' = 'dropped'
     group by job_id
    on conflict (job_id, seq) do update
       set at = excluded.at, attempt = excluded.attempt,
           detail = jsonb_build_object('count', (h.detail ->> 'count')::int + (excluded.detail ->> 'count')::int)
  )`;
}

/** A run-history row as stored. */
export interface StoredHistoryEvent {
  seq: number;
  attempt: number;
  kind: string;
  at: Date;
  ended_at: Date | null;
  worker: string | null;
  detail: Record<string, unknown> | null;
}

/** A job's run history, oldest first (its `dropped` row, if any, last). */
export const listHistory = defineQuery<{ id: string }, StoredHistoryEvent>(
  'listHistory',
  /* sql */ `
  select seq, attempt, kind, at, ended_at, worker, detail
    from /*schema*/run_history
   where job_id = @id::bigint
   order by seq`,
);

/** What the history reads from the job's row: its attempt log, and the worker of its last run. */
export const jobRunRecord = defineQuery<
  { id: string },
  { attempt_log: AttemptEntry[] | null; ran_by: string | null }
>('jobRunRecord', /* sql */ `select attempt_log, ran_by from /*schema*/jobs where id = @id::bigint`);
