/**
 * A limiter's grant commits as the claim it follows does: without waiting for the WAL flush on
 * PostgreSQL, durably where the database runs inside the worker's process (PGlite, whose driver
 * sets `tidemark.durable_claims` for its session). Migration 8 turned the flush off outright,
 * so on PGlite a worker killed while it ran a limited job lost the tokens its start had taken:
 * the claim was in the folder, the grant was not, and the job's next start took them again.
 *
 * The two functions are restated from their own definitions with that one call changed, so
 * nothing else in them moves; the migration fails if either no longer holds the call.
 */
export const name = 'durable-grants';

export const sql = /* sql */ `
do $migration$
declare
  fn regprocedure;
  definition text;
  async_commit constant text := $c$set_config('synchronous_commit', 'off', true)$c$;
  claim_commit constant text := $c$set_config('synchronous_commit',
    case when current_setting('tidemark.durable_claims', true) = 'on' then 'on' else 'off' end, true)$c$;
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
