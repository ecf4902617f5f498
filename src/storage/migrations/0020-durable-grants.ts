/**
 * How a claim's transaction commits, said once: `claim_commit()` gives the `synchronous_commit`
 * a claim, a heartbeat or a limiter's grant sets for its transaction. Off on PostgreSQL (a lost
 * claim leaves its job claimable again); on where the database runs inside the worker's process
 * (PGlite, whose driver sets `tidemark.durable_claims` for its session), where a killed worker is
 * a crashed database. Migration 8 turned the flush off outright in the limiter functions, so on
 * PGlite a worker killed while it ran a limited job lost the tokens its start had taken: the
 * claim was in the folder, the grant was not, and the job's next start took them again.
 *
 * The two functions are restated from their own definitions with that one call changed, so
 * nothing else in them moves; the migration fails if either no longer holds the call. The
 * claim's statements call the same function (ASYNC_COMMIT in sql/worker.ts); as a one-line SQL
 * function it is inlined into their plans.
 */
export const name = 'durable-grants';

export const sql = /* sql */ `
create function /*schema*/claim_commit() returns text
language sql stable as $$
  select case when current_setting('tidemark.durable_claims', true) = 'on' then 'on' else 'off' end
$$;

do $migration$
declare
  fn regprocedure;
  definition text;
  async_commit constant text := $c$set_config('synchronous_commit', 'off', true)$c$;
  claim_commit constant text := $c$set_config('synchronous_commit', /*schema*/claim_commit(), true)$c$;
begin
  foreach fn in array array[
    '/*schema*/take_limiter_tokens(jsonb)',
    '/*schema*/grant_limiter_tokens(text[], text[], int[], bigint[])'
  ]::regprocedure[] loop
    definition := pg_get_functiondef(fn);
    if position(async_commit in definition) = 0 then
      raise exception '% does not turn the WAL flush off as migration 8 wrote it', fn;
    end if;
    execute replace(definition, async_commit, claim_commit);
  end loop;
end
$migration$;
`;
