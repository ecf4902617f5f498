/** Migration 19's writes of one resolved job: a fold, a keyed insert or a plain one (intake/insert-jobs.ts). */
export const WRITE = /* sql */ `
-- Insert one resolved job (add_job_resolve), behind its time-windowed lock if it has one, in
-- one statement (the lock's row references the job). Null when its lock or unique key is held.
create function /*schema*/add_job_insert(r jsonb, delay float8) returns bigint
language plpgsql as $$
declare
  new_id bigint;
begin
  with input as (
    select nextval(pg_get_serial_sequence('/*schema*/jobs', 'id')) as id,
           coalesce((r ->> 'run_at')::timestamptz, now() + coalesce(delay, 0) * interval '1 second') as due
  ),
  locked as (
    insert into /*schema*/unique_locks (scope, job_id, expires_at)
    select r -> 'lock' ->> 'scope', input.id, now() + (r -> 'lock' ->> 'ttl')::float8 * interval '1 second'
      from input where r ? 'lock'
    on conflict (scope) do update
      set job_id = excluded.job_id, expires_at = excluded.expires_at, created_at = now()
      where /*schema*/unique_locks.expires_at <= now()
    returning job_id
  ),
  inserted as (
    insert into /*schema*/jobs (id, queue, data, priority, run_at, expire_at, max_attempts, retention, unique_key,
                                key, tier, fold_key, tags, version)
    select input.id, r ->> 'queue', r -> 'data', (r ->> 'priority')::int, input.due,
           input.due + (r ->> 'expire_in_seconds')::float8 * interval '1 second',
           (r ->> 'max_attempts')::int, r -> 'retention', r ->> 'unique_key', r ->> 'key', r ->> 'tier',
           r ->> 'fold_key', case when r ? 'tags' then array(select jsonb_array_elements_text(r -> 'tags')) end,
           r ->> 'version'
      from input
     where not r ? 'lock' or exists (select from locked)
    on conflict (queue, unique_key) where unique_key is not null
      and status in ('pending', 'active', 'retry', 'waiting', 'paused') do nothing
    returning id
  )
  select id into new_id from inserted;
  return new_id;
end $$;

-- Add a resolved job: fold it (debounce, throttle), or insert it, or return the holder of its
-- key. deduplicated: an earlier job was returned instead.
create function /*schema*/add_job_write(r jsonb, out id bigint, out deduplicated boolean)
language plpgsql as $$
declare
  fold jsonb := r -> 'fold';
  delay float8 := (r ->> 'delay_seconds')::float8;
  newest record;
  attempt int;
begin
  deduplicated := false;
  if fold is not null then
    -- The key's adds are serialised to the commit, in every process (sql/folds.ts).
    perform pg_advisory_xact_lock(hashtextextended((r ->> 'queue') || chr(31) || (r ->> 'fold_key'), 9));
    select j.id,
           (j.status in ('pending', 'paused') and j.attempts = 0 and j.attempt_log is null) as unstarted,
           extract(epoch from now() - j.created_at)::float8 as since_added,
           extract(epoch from now() - coalesce(
             case when j.status in ('pending', 'paused') and j.attempts = 0 and j.attempt_log is null
                  then null else j.started_at end,
             (select s.started_at from /*schema*/jobs s
               where s.queue = r ->> 'queue' and s.fold_key = r ->> 'fold_key' and s.started_at is not null
                 and s.id < j.id and not (s.status in ('pending', 'paused') and s.attempts = 0 and s.attempt_log is null)
               order by s.id desc limit 1)))::float8 as since_started
      into newest
      from /*schema*/jobs j
     where j.queue = r ->> 'queue' and j.fold_key = r ->> 'fold_key'
     order by j.id desc limit 1
       for update of j;
    if fold ->> 'mode' = 'trailing' then
      if newest.unstarted then
        update /*schema*/jobs
           set data = r -> 'data',
               run_at = now() + greatest(0, least((fold ->> 'seconds')::float8,
                          (fold ->> 'max_wait')::float8 - newest.since_added)) * interval '1 second',
               expire_at = now() + greatest(0, least((fold ->> 'seconds')::float8,
                          (fold ->> 'max_wait')::float8 - newest.since_added)) * interval '1 second' + (expire_at - run_at)
         where jobs.id = newest.id and status in ('pending', 'paused') and attempts = 0 and attempt_log is null;
        id := newest.id;
        deduplicated := true;
        return;
      end if;
      delay := least((fold ->> 'seconds')::float8, (fold ->> 'max_wait')::float8);
    elsif fold ->> 'mode' = 'leading' then
      if newest.id is not null and newest.since_added < (fold ->> 'seconds')::float8 then
        id := newest.id;
        deduplicated := true;
        return;
      end if;
    else
      if newest.unstarted then
        id := newest.id;
        deduplicated := true;
        return;
      end if;
      delay := greatest(coalesce(delay, 0),
                        case when newest.since_started is null then 0
                             else (fold ->> 'seconds')::float8 - newest.since_started end);
    end if;
  end if;
  -- A held key's holder can finish between the conflict and its read: insert again then.
  for attempt in 1 .. 5 loop
    id := /*schema*/add_job_insert(r, delay);
    if id is not null then return; end if;
    deduplicated := true;
    if r ? 'lock' then
      select l.job_id into id from /*schema*/unique_locks l where l.scope = r -> 'lock' ->> 'scope' and l.expires_at > now();
    else
      select j.id into id from /*schema*/jobs j
       where j.queue = r ->> 'queue' and j.unique_key = r ->> 'unique_key'
         and j.status in ('pending', 'active', 'retry', 'waiting', 'paused');
    end if;
    if id is not null then return; end if;
    deduplicated := false;
  end loop;
  raise exception 'could not insert or find the holder of the key of a job of queue %', r ->> 'queue';
end $$;
`;
