/**
 * A limiter's guard grows with a long period. The guard (migration 8) is how long after its
 * grant a job may start; a job the worker finds later goes back with its tokens spent. At a
 * twentieth of the period and at most 50 ms, a limiter of one start an hour lost its hour to a
 * worker process the machine left unscheduled for 50 ms between the grant and the start. The
 * cap is now the larger of 50 ms and a thousandth of the period: the same up to periods of
 * 50 s, 3.6 s for an hour, at a cost of a thousandth of the rate (tokens are spaced by
 * (period + guard) / limit).
 *
 * The spacing and the two token functions are restated from their own definitions with the
 * guard's expression replaced, so nothing else in them moves, as migration 20 did; the
 * migration fails if one no longer holds the expression.
 */
export const name = 'limiter-guard';

export const sql = /* sql */ `
create function /*schema*/limiter_guard(period_seconds float8) returns float8
language sql immutable as $$
  select least(period_seconds / 20, greatest(0.05, period_seconds / 1000))
$$;

do $migration$
declare
  target record;
  definition text;
begin
  for target in
    select * from (values
      ('/*schema*/limiter_spacing(float8, int)'::regprocedure,
       'least(period_seconds / 20, 0.05)', '/*schema*/limiter_guard(period_seconds)'),
      ('/*schema*/take_limiter_tokens(jsonb)'::regprocedure,
       'least(l.period_seconds / 20, 0.05)', '/*schema*/limiter_guard(l.period_seconds)'),
      ('/*schema*/grant_limiter_tokens(text[], text[], int[], bigint[])'::regprocedure,
       'least(l.period_seconds / 20, 0.05)', '/*schema*/limiter_guard(l.period_seconds)')
    ) as t(fn, old_guard, new_guard)
  loop
    definition := pg_get_functiondef(target.fn);
    if position(target.old_guard in definition) = 0 then
      raise exception '% does not compute the guard as migration 8 wrote it', target.fn;
    end if;
    execute replace(definition, target.old_guard, target.new_guard);
  end loop;
end
$migration$;
`;
