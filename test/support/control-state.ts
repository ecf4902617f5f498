import type { Tidemark } from '../../src/index.js';
import { rawQuery } from './databases.js';

/**
 * What a refused retention control must leave as it was: the gate's version (raised by
 * every pause, resume and hold), the pause switch, the holds and their links, and every
 * job's frozen windows and purge time.
 */
export async function controlState(tm: Tidemark): Promise<unknown> {
  const s = `"${tm.schema}"`;
  const [row] = await rawQuery(
    tm,
    `select (select version from ${s}.retention_control where id = 1) as version,
            (select paused from ${s}.retention_control where id = 1) as paused,
            (select count(*) from ${s}.retention_holds)::int as holds,
            (select count(*) from ${s}.retention_hold_jobs)::int as links,
            (select coalesce(jsonb_agg(jsonb_build_array(id, retention, purge_after) order by id), '[]'::jsonb)
               from ${s}.jobs) as jobs`,
  );
  return row;
}
