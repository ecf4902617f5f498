/**
 * Adding jobs from SQL: `add_job(queue, data, options)` and `add_jobs(jobs)`, callable from any
 * client, function or trigger, inside the caller's transaction (docs/sql-enqueue.md).
 *
 * They take `tm.addJob`'s options under its names and write the row `tm.addJob` writes: the
 * same columns, the queue's attempts, retention and version where the job sets none, the same
 * keys for `unique`, `idempotencyKey` and `uniqueFor`, the same folds for `debounce` and
 * `throttle`, and one NOTIFY per queue with work ready now, delivered at commit. A change to
 * what `tm.addJob` writes replaces these functions in a later migration;
 * test/intake/every-path.test.ts compares the two rows field by field.
 *
 * `queues.engine_retention` is the defining process's engine policy (`Tidemark.open({ retention })`),
 * written with the queue's options: what `tm.addJob` freezes on a job of a queue that sets no
 * policy of its own, which the database otherwise never sees.
 *
 * Errors: SQLSTATE TM001 for an invalid option (the message names the field as `tm.addJob`'s
 * InvalidOptionError does, and so does the error's column field), TM002 for a queue that was
 * never defined. A statement that fails writes nothing, and a rolled-back NOTIFY is not sent.
 *
 * `add_job_*` functions are the two's parts, not for callers.
 */
export const name = 'sql-enqueue';

export const sql = /* sql */ `
alter table /*schema*/queues add column engine_retention jsonb;

create function /*schema*/add_job_refuse(field text, expected text, got jsonb) returns void
language plpgsql as $$
begin
  raise exception using
    errcode = 'TM001',
    message = format('invalid option ''%s'': expected %s, got %s', field, expected,
                     coalesce(left(got::text, 200), 'nothing')),
    column = field;
end $$;

-- The length JavaScript gives a string (UTF-16 code units): what tm.addJob's limits count.
create function /*schema*/add_job_length(value text) returns int
language sql immutable strict as $$
  select char_length(value) + case when octet_length(value) = char_length(value) then 0
    else char_length(regexp_replace(value, '[^\\U00010000-\\U0010FFFF]', '', 'g')) end
$$;

create function /*schema*/add_job_text(value jsonb, field text, max int) returns text
language plpgsql as $$
begin
  if value is null then return null; end if;
  if jsonb_typeof(value) <> 'string' or value #>> '{}' = ''
     or /*schema*/add_job_length(value #>> '{}') > max then
    perform /*schema*/add_job_refuse(field,
      format('a non-empty string of at most %s characters, without NUL or unpaired surrogates', max), value);
  end if;
  return value #>> '{}';
end $$;

create function /*schema*/add_job_integer(value jsonb, field text, low bigint, high bigint) returns bigint
language plpgsql as $$
begin
  if value is null then return null; end if;
  if jsonb_typeof(value) <> 'number' then
    perform /*schema*/add_job_refuse(field, format('an integer from %s to %s', low, high), value);
  end if;
  if value::numeric <> trunc(value::numeric) or value::numeric < low or value::numeric > high then
    perform /*schema*/add_job_refuse(field, format('an integer from %s to %s', low, high), value);
  end if;
  return value::numeric::bigint;
end $$;

create function /*schema*/add_job_seconds(value jsonb, field text, above_zero boolean, high bigint)
returns float8 language plpgsql as $$
begin
  if value is null then return null; end if;
  if jsonb_typeof(value) <> 'number' then
    perform /*schema*/add_job_refuse(field,
      format('a number of seconds %s 0 and <= %s', case when above_zero then '>' else '>=' end, high), value);
  end if;
  if value::numeric > high or (above_zero and value::numeric <= 0) or value::numeric < 0 then
    perform /*schema*/add_job_refuse(field,
      format('a number of seconds %s 0 and <= %s', case when above_zero then '>' else '>=' end, high), value);
  end if;
  return value::numeric::float8;
end $$;

-- Keys outside known: the first refused, as tm.addJob refuses an unknown option.
create function /*schema*/add_job_known(value jsonb, field text, known text[]) returns void
language plpgsql as $$
declare
  unknown text;
begin
  select k into unknown from jsonb_object_keys(value) k where k <> all (known) order by k limit 1;
  if unknown is not null then
    perform /*schema*/add_job_refuse(field || unknown,
      format('one of the known options (%s)', array_to_string(known, ', ')), to_jsonb(unknown));
  end if;
end $$;

-- A retention policy as tm.addJob freezes it: false keeps all; windows of 0 are dropped.
create function /*schema*/add_job_retention(value jsonb, field text) returns jsonb
language plpgsql as $$
declare
  windows constant text[] := array['completed', 'failed', 'cancelled', 'expired', 'consumedSignals', 'logsAfterSeconds'];
  finished constant text[] := array['completed', 'failed', 'cancelled', 'expired'];
  frozen jsonb := '{}';
  k text;
  ttl jsonb;
  i int;
begin
  if value is null then return null; end if;
  if value = 'false'::jsonb then return '{}'; end if;
  if jsonb_typeof(value) <> 'object' then
    perform /*schema*/add_job_refuse(field, 'a retention policy object or false', value);
  end if;
  if (value ? 'ttlSeconds' or value ? 'statuses') and value ?| windows then
    perform /*schema*/add_job_refuse(field, 'either { ttlSeconds, statuses? } or per-status windows, not both',
      to_jsonb((select string_agg(k2, ', ') from jsonb_object_keys(value) k2)));
  end if;
  perform /*schema*/add_job_known(value, field || '.', array['ttlSeconds', 'statuses'] || windows);
  for k in select unnest(case when value ? 'ttlSeconds' or value ? 'statuses'
                              then array['ttlSeconds'] else windows end) loop
    ttl := value -> k;
    if ttl is null and k = 'ttlSeconds' then
      perform /*schema*/add_job_refuse(field || '.ttlSeconds', 'a number of seconds', null);
    end if;
    if ttl is null then continue; end if;
    if jsonb_typeof(ttl) <> 'number' then
      perform /*schema*/add_job_refuse(field || '.' || k, 'a whole number of seconds from 0 to 3200000000', ttl);
    end if;
    if ttl::numeric <> trunc(ttl::numeric) or ttl::numeric < 0 or ttl::numeric > 3200000000 then
      perform /*schema*/add_job_refuse(field || '.' || k, 'a whole number of seconds from 0 to 3200000000', ttl);
    end if;
    if ttl::numeric > 0 and k <> 'ttlSeconds' then frozen := frozen || jsonb_build_object(k, ttl::numeric::bigint); end if;
  end loop;
  if value ? 'ttlSeconds' then
    if value ? 'statuses' and jsonb_typeof(value -> 'statuses') <> 'array' then
      perform /*schema*/add_job_refuse(field || '.statuses', 'an array of finished statuses', value -> 'statuses');
    end if;
    for i in 0 .. coalesce(jsonb_array_length(value -> 'statuses'), 4) - 1 loop
      k := case when value ? 'statuses' then value -> 'statuses' ->> i else finished[i + 1] end;
      if k is null or k <> all (finished) or jsonb_typeof(value -> 'statuses' -> i) <> 'string' then
        perform /*schema*/add_job_refuse(format('%s.statuses[%s]', field, i),
          'a finished status (completed, failed, cancelled, expired)', value -> 'statuses' -> i);
      end if;
      if (value ->> 'ttlSeconds')::numeric > 0 then
        frozen := frozen || jsonb_build_object(k, (value ->> 'ttlSeconds')::numeric::bigint);
      end if;
    end loop;
  end if;
  return frozen;
end $$;

-- JSON text as tm.addJob hashes data for unique and uniqueFor: keys sorted, no spaces, numbers
-- without trailing zeros (JSON.stringify's form for the numbers JSON data usually holds).
create function /*schema*/add_job_canonical(value jsonb) returns text
language plpgsql immutable strict as $$
begin
  case jsonb_typeof(value)
    when 'object' then
      return '{' || coalesce((select string_agg(to_jsonb(e.k)::text || ':' || /*schema*/add_job_canonical(e.v), ','
                                                order by e.k collate "C")
                                from jsonb_each(value) e(k, v)), '') || '}';
    when 'array' then
      return '[' || coalesce((select string_agg(/*schema*/add_job_canonical(a.v), ',' order by a.n)
                                from jsonb_array_elements(value) with ordinality a(v, n)), '') || ']';
    when 'number' then
      return trim_scale(value::numeric)::text;
    else
      return value::text;
  end case;
end $$;

-- One job of a call checked and resolved into the row tm.addJob would write, its queue's
-- options applied; nothing written. at: '' for a call of one job, else 'jobs[i].'.
create function /*schema*/add_job_resolve(job jsonb, at text) returns jsonb
language plpgsql as $$
declare
  known constant text[] := array['queue', 'data', 'delaySeconds', 'runAt', 'priority', 'maxAttempts',
    'expireInSeconds', 'idempotencyKey', 'uniqueFor', 'unique', 'retention', 'debounce', 'throttle', 'key',
    'tier', 'tags', 'dependsOn', 'onDependencyFailure'];
  stock constant jsonb := '{"completed": 2592000, "failed": 7776000, "cancelled": 7776000, "expired": 7776000, "consumedSignals": 604800}';
  q text;
  data jsonb;
  r jsonb;
  stored record;
  run_at timestamptz;
  given text;
  tags text[];
  depends_on text[];
  idem jsonb;
  unique_for float8;
  fold_name text;
  fold jsonb;
  clash text;
  mode text;
  tiers jsonb;
  i int;
begin
  if jsonb_typeof(job) is distinct from 'object' then
    perform /*schema*/add_job_refuse(coalesce(nullif(rtrim(at, '.'), ''), 'job'), 'an object', job);
  end if;
  perform /*schema*/add_job_known(job, at, known);
  q := /*schema*/add_job_text(job -> 'queue', at || 'queue', 200);
  if q is null then
    perform /*schema*/add_job_refuse(at || 'queue', 'a non-empty string of at most 200 characters, without NUL or unpaired surrogates', null);
  end if;
  data := coalesce(job -> 'data', 'null');
  if octet_length(data::text) > 1048576 and octet_length(/*schema*/add_job_canonical(data)) > 1048576 then
    perform /*schema*/add_job_refuse(at || 'data', 'JSON data of at most 1048576 bytes', to_jsonb('a larger payload'::text));
  end if;
  if octet_length(data::text) > 400
     and jsonb_path_exists(data, 'strict $.**{200 to last} ? (@.type() == "object" || @.type() == "array")') then
    perform /*schema*/add_job_refuse(at || 'data', 'JSON nested at most 200 levels deep', to_jsonb('deeper nesting'::text));
  end if;
  r := jsonb_build_object('queue', q, 'data', data,
    'priority', coalesce(/*schema*/add_job_integer(job -> 'priority', at || 'priority', -1000000, 1000000), 0));
  r := r || jsonb_strip_nulls(jsonb_build_object(
    'delay_seconds', /*schema*/add_job_seconds(job -> 'delaySeconds', at || 'delaySeconds', false, 3153600000),
    'max_attempts', /*schema*/add_job_integer(job -> 'maxAttempts', at || 'maxAttempts', 1, 1000),
    'expire_in_seconds', /*schema*/add_job_seconds(job -> 'expireInSeconds', at || 'expireInSeconds', true, 3200000000),
    'retention', /*schema*/add_job_retention(job -> 'retention', at || 'retention'),
    'key', /*schema*/add_job_text(job -> 'key', at || 'key', 512),
    'tier', /*schema*/add_job_text(job -> 'tier', at || 'tier', 200)));
  if job ? 'runAt' then
    given := case when jsonb_typeof(job -> 'runAt') = 'string' then job ->> 'runAt' end;
    -- ISO 8601 only (PostgreSQL would also read 'now' or 'tomorrow'); no offset reads as UTC.
    if given is null or given !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]+)?)?)?(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)?$' then
      perform /*schema*/add_job_refuse(at || 'runAt', 'an ISO 8601 string, in the years 1 to 9999', job -> 'runAt');
    end if;
    begin
      run_at := case when given ~ '(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$' and given ~ 'T|:' then given::timestamptz
                     else (given || 'Z')::timestamptz end;
    exception when others then
      perform /*schema*/add_job_refuse(at || 'runAt', 'an ISO 8601 string, in the years 1 to 9999', job -> 'runAt');
    end;
    if run_at < '0001-01-01T00:00:00Z' or run_at >= '10000-01-01T00:00:00Z' then
      perform /*schema*/add_job_refuse(at || 'runAt', 'an ISO 8601 string, in the years 1 to 9999', job -> 'runAt');
    end if;
    r := r || jsonb_build_object('run_at', run_at);
  end if;
  if job ? 'tags' then
    if jsonb_typeof(job -> 'tags') <> 'array' then
      perform /*schema*/add_job_refuse(at || 'tags', 'an array of 1 to 20 tags', job -> 'tags');
    end if;
    if jsonb_array_length(job -> 'tags') not between 1 and 20 then
      perform /*schema*/add_job_refuse(at || 'tags', 'an array of 1 to 20 tags', job -> 'tags');
    end if;
    for i in 0 .. jsonb_array_length(job -> 'tags') - 1 loop
      if jsonb_typeof(job -> 'tags' -> i) <> 'string' or job -> 'tags' ->> i = ''
         or /*schema*/add_job_length(job -> 'tags' ->> i) > 100 then
        perform /*schema*/add_job_refuse(format('%stags[%s]', at, i), 'a string of 1 to 100 characters', job -> 'tags' -> i);
      end if;
      if not (job -> 'tags' ->> i = any (coalesce(tags, '{}'))) then tags := tags || (job -> 'tags' ->> i); end if;
    end loop;
    r := r || jsonb_build_object('tags', to_jsonb(tags));
  end if;
  if job ? 'idempotencyKey' then
    idem := job -> 'idempotencyKey';
    if jsonb_typeof(idem) <> 'object' then
      perform /*schema*/add_job_refuse(at || 'idempotencyKey', '{ key: string; ttlSeconds: number }', idem);
    end if;
    perform /*schema*/add_job_known(idem, at || 'idempotencyKey.', array['key', 'ttlSeconds']);
    if not idem ? 'key' then
      perform /*schema*/add_job_refuse(at || 'idempotencyKey.key', 'a non-empty string of at most 255 characters, without NUL or unpaired surrogates', null);
    end if;
    if not idem ? 'ttlSeconds' then
      perform /*schema*/add_job_refuse(at || 'idempotencyKey.ttlSeconds', 'a number of seconds > 0 and <= 3200000000', null);
    end if;
    idem := jsonb_build_object(
      'key', /*schema*/add_job_text(idem -> 'key', at || 'idempotencyKey.key', 255),
      'ttl', /*schema*/add_job_seconds(idem -> 'ttlSeconds', at || 'idempotencyKey.ttlSeconds', true, 3200000000));
  end if;
  unique_for := /*schema*/add_job_seconds(job -> 'uniqueFor', at || 'uniqueFor', true, 3200000000);
  if job ? 'unique' and not (jsonb_typeof(job -> 'unique') = 'boolean' or (jsonb_typeof(job -> 'unique') = 'string'
     and job ->> 'unique' <> '' and /*schema*/add_job_length(job ->> 'unique') <= 255)) then
    perform /*schema*/add_job_refuse(at || 'unique', 'true, false or a key of 1-255 characters', job -> 'unique');
  end if;
  for fold_name in select unnest(array['debounce', 'throttle']) loop
    continue when not job ? fold_name;
    fold := job -> fold_name;
    if jsonb_typeof(fold) <> 'object' then
      perform /*schema*/add_job_refuse(at || fold_name, 'an object', fold);
    end if;
    perform /*schema*/add_job_known(fold, at || fold_name || '.',
      case when fold_name = 'debounce' then array['key', 'seconds', 'maxWaitSeconds', 'mode'] else array['key', 'seconds'] end);
    if not fold ? 'key' then
      perform /*schema*/add_job_refuse(at || fold_name || '.key', 'a non-empty string of at most 512 characters, without NUL or unpaired surrogates', null);
    end if;
    if not fold ? 'seconds' then
      perform /*schema*/add_job_refuse(at || fold_name || '.seconds', 'a number of seconds > 0 and <= 3153600000', null);
    end if;
    perform /*schema*/add_job_text(fold -> 'key', at || fold_name || '.key', 512);
    perform /*schema*/add_job_seconds(fold -> 'seconds', at || fold_name || '.seconds', true, 3153600000);
    perform /*schema*/add_job_seconds(fold -> 'maxWaitSeconds', at || fold_name || '.maxWaitSeconds', true, 3153600000);
    if fold ? 'mode' and (fold -> 'mode') not in ('"trailing"', '"leading"') then
      perform /*schema*/add_job_refuse(at || fold_name || '.mode', '''trailing'' or ''leading''', fold -> 'mode');
    end if;
  end loop;
  if job ? 'dependsOn' then
    if jsonb_typeof(job -> 'dependsOn') <> 'array' then
      perform /*schema*/add_job_refuse(at || 'dependsOn', 'an array of 1 to 1000 job ids', job -> 'dependsOn');
    end if;
    if jsonb_array_length(job -> 'dependsOn') not between 1 and 1000 then
      perform /*schema*/add_job_refuse(at || 'dependsOn', 'an array of 1 to 1000 job ids', job -> 'dependsOn');
    end if;
    for i in 0 .. jsonb_array_length(job -> 'dependsOn') - 1 loop
      -- A decimal string, or a number JavaScript holds exactly (as tm.addJob takes ids).
      given := case jsonb_typeof(job -> 'dependsOn' -> i)
                 when 'string' then job -> 'dependsOn' ->> i
                 when 'number' then case when (job -> 'dependsOn' -> i)::numeric = trunc((job -> 'dependsOn' -> i)::numeric)
                                         and abs((job -> 'dependsOn' -> i)::numeric) <= 9007199254740991
                                    then trunc((job -> 'dependsOn' -> i)::numeric)::text end
               end;
      if given is null or given !~ '^[1-9][0-9]{0,18}$' or given::numeric > 9223372036854775807 then
        perform /*schema*/add_job_refuse(format('%sdependsOn[%s]', at, i), 'a job id', job -> 'dependsOn' -> i);
      end if;
      if not (given = any (coalesce(depends_on, '{}'))) then depends_on := depends_on || given; end if;
    end loop;
  end if;
  if job ? 'onDependencyFailure' and (job -> 'onDependencyFailure') not in ('"fail"', '"cancel"', '"run"') then
    perform /*schema*/add_job_refuse(at || 'onDependencyFailure', '''fail'', ''cancel'' or ''run''', job -> 'onDependencyFailure');
  end if;
  -- The rules that span fields, in tm.addJob's order.
  if job ? 'runAt' and job ? 'delaySeconds' then
    perform /*schema*/add_job_refuse(at || 'delaySeconds', 'either runAt or delaySeconds, not both', job -> 'delaySeconds');
  end if;
  if idem is not null and unique_for is not null then
    perform /*schema*/add_job_refuse(at || 'uniqueFor', 'either idempotencyKey or uniqueFor, not both', job -> 'uniqueFor');
  end if;
  if job -> 'unique' = 'true' then
    r := r || jsonb_build_object('unique_key',
      'data:' || encode(sha256(convert_to(/*schema*/add_job_canonical(data), 'UTF8')), 'hex'));
  elsif jsonb_typeof(job -> 'unique') = 'string' then
    r := r || jsonb_build_object('unique_key', 'key:' || (job ->> 'unique'));
  end if;
  if r ? 'unique_key' and (idem is not null or unique_for is not null) then
    perform /*schema*/add_job_refuse(at || 'unique', 'unique without idempotencyKey or uniqueFor', job -> 'unique');
  end if;
  fold_name := case when job ? 'debounce' then 'debounce' when job ? 'throttle' then 'throttle' end;
  if fold_name is not null then
    fold := job -> fold_name;
    select c into clash from unnest(case when fold_name = 'debounce'
        then array['throttle', 'idempotencyKey', 'uniqueFor', 'unique', 'runAt', 'delaySeconds']
        else array['idempotencyKey', 'uniqueFor', 'unique', 'runAt'] end) with ordinality u(c, n)
     where job ? c order by n limit 1;
    if clash is not null then
      perform /*schema*/add_job_refuse(at || fold_name, format('either %s or %s, not both', fold_name, clash), fold);
    end if;
    mode := case when fold_name = 'throttle' then 'throttle' else coalesce(fold ->> 'mode', 'trailing') end;
    if mode = 'leading' and fold ? 'maxWaitSeconds' then
      perform /*schema*/add_job_refuse(at || 'debounce.maxWaitSeconds',
        'no maxWaitSeconds with mode ''leading'' (the first add runs at once)', fold -> 'maxWaitSeconds');
    end if;
    r := r || jsonb_build_object('fold_key', fold_name || ':' || (fold ->> 'key'),
      'fold', jsonb_build_object('mode', mode, 'seconds', fold -> 'seconds', 'max_wait', fold -> 'maxWaitSeconds'));
  end if;
  if job ? 'onDependencyFailure' and depends_on is null then
    perform /*schema*/add_job_refuse(at || 'onDependencyFailure', 'no onDependencyFailure without dependsOn',
      job -> 'onDependencyFailure');
  end if;
  if depends_on is not null then
    if fold_name is not null then
      perform /*schema*/add_job_refuse(at || 'dependsOn', format('either dependsOn or %s, not both', fold_name),
        job -> 'dependsOn');
    end if;
    r := r || jsonb_build_object('depends_on', to_jsonb(depends_on), 'depends_field', at || 'dependsOn',
      'on_failure', coalesce(job ->> 'onDependencyFailure', 'fail'));
  end if;
  if idem is not null then
    r := r || jsonb_build_object('lock', jsonb_build_object('scope', 'idem:' || q || ':' || (idem ->> 'key'), 'ttl', idem -> 'ttl'));
  elsif unique_for is not null then
    r := r || jsonb_build_object('lock', jsonb_build_object(
      'scope', 'data:' || q || ':' || encode(sha256(convert_to(/*schema*/add_job_canonical(data), 'UTF8')), 'hex'),
      'ttl', unique_for));
  end if;
  -- What the queue gives: it must exist (tm.addJob's QueueNotFoundError).
  select options, engine_retention into stored from /*schema*/queues where name = q;
  if not found then
    raise exception using
      errcode = 'TM002',
      message = format('queue ''%s'' does not exist: create it with tm.createQueue first', q),
      column = at || 'queue';
  end if;
  r := r || jsonb_build_object(
    'max_attempts', coalesce((r ->> 'max_attempts')::int, (stored.options ->> 'maxAttempts')::int, 3),
    'retention', coalesce(r -> 'retention', stored.options -> 'retention', stored.engine_retention, stock));
  if stored.options ? 'version' then r := r || jsonb_build_object('version', stored.options -> 'version'); end if;
  if r ? 'tier' then
    tiers := coalesce(stored.options -> 'keys' -> 'tiers', '{}');
    if not tiers ? (r ->> 'tier') then
      perform /*schema*/add_job_refuse(at || 'tier',
        case when tiers = '{}' then format('no tier: queue ''%s'' defines no keys.concurrency.tiers', q)
             else format('one of the tiers of queue ''%s'' (%s)', q,
                         (select string_agg(t, ', ') from jsonb_object_keys(tiers) t)) end,
        r -> 'tier');
    end if;
  end if;
  return r;
end $$;

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

create function /*schema*/add_jobs(jobs jsonb) returns table (id bigint, deduplicated boolean)
language plpgsql as $$
declare
  n int;
  resolved jsonb[];
  ids bigint[];
  deduplicated_ids boolean[];
  ready text[] := '{}';
  written record;
  place record;
  named text[];
  present text[];
  missing text;
begin
  if jsonb_typeof(jobs) is distinct from 'array' then
    perform /*schema*/add_job_refuse('jobs', 'an array of jobs', jobs);
  end if;
  n := jsonb_array_length(jobs);
  -- Every job checked, and its queue read, before the first is written.
  for i in 0 .. n - 1 loop
    resolved[i + 1] := /*schema*/add_job_resolve(jobs -> i, case when n = 1 then '' else format('jobs[%s].', i) end);
  end loop;
  -- The dependencies named, locked in id order and counted on (sql/dependencies.ts): one
  -- finishing meanwhile either finished before and is read finished, or waits for this commit.
  select array_agg(distinct d) into named
    from unnest(resolved) u(r), jsonb_array_elements_text(u.r -> 'depends_on') d;
  if named is not null then
    with locked as (
      select j.id from /*schema*/jobs j where j.id = any (named::bigint[]) order by j.id for no key update
    ),
    counted as (
      update /*schema*/jobs j set dependents = j.dependents + 1 from locked l where j.id = l.id returning j.id
    )
    select array_agg(counted.id::text) into present from counted;
    for place in select u.r from unnest(resolved) u(r) where u.r ? 'depends_on' loop
      select d into missing from jsonb_array_elements_text(place.r -> 'depends_on') d
       where not (d = any (coalesce(present, '{}'))) limit 1;
      if missing is not null then
        perform /*schema*/add_job_refuse(place.r ->> 'depends_field',
          format('the ids of jobs that exist (job %s does not)', missing), to_jsonb(missing));
      end if;
    end loop;
  end if;
  -- Folds first, then time-windowed locks, each in the order of its key, so that two calls in
  -- concurrent transactions never wait on each other's keys in opposite orders.
  for place in
    select u.r, u.n from unnest(resolved) with ordinality u(r, n)
     order by case when u.r ? 'fold' then 0 when u.r ? 'lock' then 1 else 2 end,
              case when u.r ? 'fold' then (u.r ->> 'queue') || chr(31) || (u.r ->> 'fold_key')
                   else u.r -> 'lock' ->> 'scope' end collate "C",
              u.n
  loop
    select * into written from /*schema*/add_job_write(place.r);
    ids[place.n] := written.id;
    deduplicated_ids[place.n] := written.deduplicated;
    if not written.deduplicated and not ((place.r ->> 'queue') = any (ready)) then
      ready := ready || (place.r ->> 'queue');
    end if;
  end loop;
  -- The dependents just added wait for their dependencies, or settle at once (sql/dependencies.ts).
  if named is not null then
    with edge as (
      select u.n as job_n, d.id as dependency_id, d.queue, d.status
        from unnest(resolved) with ordinality u(r, n)
        cross join jsonb_array_elements_text(u.r -> 'depends_on') t(dependency)
        join /*schema*/jobs d on d.id = t.dependency::bigint
       where u.r ? 'depends_on' and not deduplicated_ids[u.n]
    ),
    dependent as (
      select ids[u.n] as job_id, u.n as job_n, u.r ->> 'on_failure' as on_failure
        from unnest(resolved) with ordinality u(r, n)
       where u.r ? 'depends_on' and not deduplicated_ids[u.n]
    ),
    stored as (
      insert into /*schema*/job_dependencies (job_id, dependency_id, settled)
      select ids[edge.job_n], edge.dependency_id, edge.status in ('completed', 'failed', 'cancelled', 'expired') from edge
    ),
    state as (
      select edge.job_n,
             count(*) filter (where edge.status not in ('completed', 'failed', 'cancelled', 'expired'))::int as left_count
        from edge group by edge.job_n
    ),
    bad as (
      select distinct on (edge.job_n) edge.job_n, edge.dependency_id, edge.queue, edge.status from edge
       where edge.status in ('completed', 'failed', 'cancelled', 'expired') and edge.status <> 'completed'
       order by edge.job_n, edge.dependency_id
    ),
    verdict as (
      select p.job_id, p.on_failure, s.left_count, b.dependency_id as bad_id, b.queue as bad_queue,
             b.status as bad_status, b.dependency_id is not null and p.on_failure <> 'run' as refused
        from dependent p join state s on s.job_n = p.job_n left join bad b on b.job_n = p.job_n
    )
    update /*schema*/jobs j
       set dependencies_left = v.left_count,
           on_dependency_failure = v.on_failure,
           status = case when v.refused and v.on_failure = 'cancel' then 'cancelled'
                         when v.refused then 'failed'
                         when v.left_count > 0 then 'waiting' else j.status end,
           wait = case when not v.refused and v.left_count > 0
                       then jsonb_build_object('kind', 'dependencies', 'runAt', j.run_at) else j.wait end,
           run_at = case when not v.refused and v.left_count > 0 then 'infinity' else j.run_at end,
           error = case when v.refused
                        then jsonb_build_object('name', 'DependencyFailedError',
                               'message', format('dependency %s (queue %s) ended %s', v.bad_id, v.bad_queue, v.bad_status),
                               'dependency', v.bad_id::text, 'dependencyStatus', v.bad_status)
                        else j.error end,
           finished_at = case when v.refused then now() else j.finished_at end,
           purge_after = case when v.refused
                              then /*schema*/purge_time(j.retention,
                                     case when v.on_failure = 'cancel' then 'cancelled' else 'failed' end, now())
                              else j.purge_after end
      from verdict v
     where j.id = v.job_id;
  end if;
  -- Workers of a queue with work ready now are woken, at commit (sql/job-columns.ts).
  perform pg_notify('tidemark_' || (select ns.nspname from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
                                    where c.oid = '/*schema*/jobs'::regclass), 'j:' || q)
     from unnest(ready) q
    where exists (select from /*schema*/jobs j where j.id = any (ids) and j.queue = q and j.run_at <= now());
  return query select u.id, u.d from unnest(ids, deduplicated_ids) with ordinality u(id, d, n) order by u.n;
end $$;

create function /*schema*/add_job(queue text, data jsonb, options jsonb default '{}')
returns table (id bigint, deduplicated boolean)
language plpgsql as $$
begin
  if jsonb_typeof(options) is distinct from 'object' then
    perform /*schema*/add_job_refuse('options', 'an object of tm.addJob''s options', options);
  end if;
  if options ? 'queue' or options ? 'data' then
    perform /*schema*/add_job_refuse(case when options ? 'queue' then 'queue' else 'data' end,
      'the queue and the data as add_job''s first two arguments, not among its options',
      coalesce(options -> 'queue', options -> 'data'));
  end if;
  return query select * from /*schema*/add_jobs(jsonb_build_array(
    options || jsonb_build_object('queue', queue, 'data', coalesce(data, 'null'::jsonb))));
end $$;
`;
