-- Tidemark's database roles for one schema (see docs/deployment.md).
--
--   psql "$ADMIN_DATABASE_URL" -v ON_ERROR_STOP=1 \
--     -c "set tidemark.schema = 'tidemark'" -f docs/roles.sql
--
-- Settings (each optional, read with current_setting):
--   tidemark.schema       the schema Tidemark uses (default 'tidemark')
--   tidemark.role_prefix  the roles' names start with it (default: the schema's name)
--
-- Makes three roles without login, and grants:
--   <prefix>_migrator  owns the schema (or, for an existing schema such as 'public', may create
--                      in it) and so everything the migrations create: `tidemark migrate`.
--   <prefix>_worker    reads and writes the rows of Tidemark's tables: adding, claiming and
--                      finishing jobs, schedules, signals, the retention sweeps. No DDL.
--   <prefix>_reader    reads them: a read-only dashboard, `tidemark stats`.
-- The worker's and the reader's grants cover only what the migrator owns (never an
-- application's tables beside Tidemark's in a shared schema), now and after every later
-- migration (default privileges). Run it as a superuser, or as a role with CREATEROLE that
-- owns the database. It may be run again: it changes nothing the second time.
do $roles$
declare
  target text := coalesce(nullif(current_setting('tidemark.schema', true), ''), 'tidemark');
  prefix text := coalesce(nullif(current_setting('tidemark.role_prefix', true), ''), target);
  migrator text := prefix || '_migrator';
  worker text := prefix || '_worker';
  reader text := prefix || '_reader';
  name text;
  owner text;
  relation record;
begin
  if target !~ '^[a-z_][a-z0-9_]{0,39}$' then
    raise exception 'tidemark.schema %: a lowercase identifier of 1-40 characters, as Tidemark takes', target;
  end if;
  if prefix !~ '^[a-z_][a-z0-9_]{0,50}$' then
    raise exception 'tidemark.role_prefix %: a lowercase identifier of 1-51 characters', prefix;
  end if;

  foreach name in array array[migrator, worker, reader] loop
    if not exists (select 1 from pg_roles where rolname = name) then
      execute format('create role %I nologin', name);
    end if;
  end loop;

  -- The migrator: the schema's owner, or a role that may create in an existing schema.
  if not exists (select 1 from pg_namespace where nspname = target) then
    execute format('create schema %I authorization %I', target, migrator);
  else
    execute format('grant usage, create on schema %I to %I', target, migrator);
  end if;
  -- A schema migrated by another role: its tables are that role's, which later migrations
  -- (run as the migrator) could not alter. Hand them over first.
  select pg_get_userbyid(c.relowner) into owner
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
   where n.nspname = target and c.relname = 'tidemark_migrations';
  if owner is not null and owner <> migrator then
    raise exception 'schema % was migrated by role %, not %', target, owner, migrator
      using hint = format('hand its Tidemark objects to the migrator first (alter table ... owner to %I), then run this again', migrator);
  end if;

  execute format('grant usage on schema %I to %I, %I', target, worker, reader);

  -- What the migrator made so far (none before the first migration).
  for relation in
    select c.relname, c.relkind
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = target and c.relowner = (select oid from pg_roles where rolname = migrator)
       and c.relkind in ('r', 'p', 'S')
  loop
    if relation.relkind = 'S' then
      execute format('grant usage, select on sequence %I.%I to %I', target, relation.relname, worker);
    else
      execute format('grant select, insert, update, delete on table %I.%I to %I', target, relation.relname, worker);
      execute format('grant select on table %I.%I to %I', target, relation.relname, reader);
    end if;
  end loop;
  for relation in
    select p.oid::regprocedure as signature
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = target and p.proowner = (select oid from pg_roles where rolname = migrator)
  loop
    execute format('grant execute on function %s to %I, %I', relation.signature, worker, reader);
  end loop;

  -- What the migrator makes later, at each migration.
  execute format('alter default privileges for role %I in schema %I grant select, insert, update, delete on tables to %I', migrator, target, worker);
  execute format('alter default privileges for role %I in schema %I grant select on tables to %I', migrator, target, reader);
  execute format('alter default privileges for role %I in schema %I grant usage, select on sequences to %I', migrator, target, worker);
  execute format('alter default privileges for role %I in schema %I grant execute on functions to %I, %I', migrator, target, worker, reader);
end
$roles$;
