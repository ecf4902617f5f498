import { defineQuery } from './define-query.js';

/**
 * A fork's copies of the checkpoints recorded before its fork point: what they recorded, at the
 * places they took (`seq`), so the determinism guard checks the fork's replay as it checked the
 * original's. Written in the transaction that adds the fork, so no worker sees one without the
 * other.
 */
export const copyCheckpoints = defineQuery<
  { from_id: string; to_id: string; names: string[] },
  { name: string }
>(
  'copyCheckpoints',
  /* sql */ `
  insert into /*schema*/checkpoints (job_id, name, kind, output, seq)
  select @to_id::bigint, c.name, c.kind, c.output, c.seq
    from /*schema*/checkpoints c
   where c.job_id = @from_id::bigint and c.name = any(@names::text[])
  returning name`,
);

/** A job's lineage: the job it was forked from, and the first 100 forks made of it. */
export const jobLineage = defineQuery<{ id: string }, { forked_from: string | null; forks: string[] }>(
  'jobLineage',
  /* sql */ `
  select (select j.forked_from::text from /*schema*/jobs j where j.id = @id::bigint) as forked_from,
         coalesce((select array_agg(f.id::text order by f.id)
                     from (select id from /*schema*/jobs where forked_from = @id::bigint order by id limit 100) f),
                  '{}') as forks`,
);
