/** Migration 19's resolution of one job: its options checked and its queue's applied, nothing written. */
export const RESOLVE = /* sql */ `
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
`;
