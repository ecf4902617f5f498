/** Migration 19's field checks: each refuses with TM001 naming the field, as tm.addJob's option set does. */
export const CHECKS = /* sql */ `
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
`;
