import { engineOf } from '../../../src/engine-handle.js';
import type { Tidemark } from '../../../src/index.js';
import { JOB_DEPENDENTS } from '../../../src/storage/sql/job-removal.js';
import { runnerOf } from '../../../src/storage/storage-internals.js';

/** Runs one statement against a Tidemark schema's database (the engine's driver, or a pg client). */
export type RunSql = <Row = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<Row[]>;

export function sqlOf(tm: Tidemark): RunSql {
  return async <Row>(text: string, params: unknown[] = []) =>
    (await runnerOf(engineOf(tm).storage).driver.query<Row>(text, params)).rows;
}

const IN_FLIGHT = `('pending','active','retry','waiting','paused')`;
const FINISHED = `('completed','failed','cancelled','expired')`;

/**
 * Impossible states and orphans, one row per problem found. Each rule is a state the engine's
 * statements can never leave behind, whatever order concurrent operations commit in.
 */
function consistencySql(schema: string): string {
  const s = `"${schema}".`;
  const rules: [string, string][] = [
    [
      'active job without a complete lock',
      `select id::text from ${s}jobs where status = 'active' and (lock_token is null or locked_by is null or locked_until is null)`,
    ],
    [
      // A cancelled job keeps its lock until its handler returns (it holds its key's slot).
      'lock held by a job that is neither active nor cancelled',
      `select id::text from ${s}jobs where status not in ('active', 'cancelled')
          and (lock_token is not null or locked_by is not null or locked_until is not null)`,
    ],
    [
      'cancelled job with part of a lock',
      `select id::text from ${s}jobs where status = 'cancelled'
          and ((lock_token is null) <> (locked_by is null) or (lock_token is null) <> (locked_until is null))`,
    ],
    [
      'finished job without finished_at',
      `select id::text from ${s}jobs where status in ${FINISHED} and finished_at is null`,
    ],
    [
      'in-flight job with finished_at',
      `select id::text from ${s}jobs where status in ${IN_FLIGHT} and finished_at is not null`,
    ],
    [
      'in-flight job with purge_after',
      `select id::text from ${s}jobs where status in ${IN_FLIGHT} and purge_after is not null`,
    ],
    [
      'finished job whose purge_after is not finished_at + its frozen window',
      `select id::text from ${s}jobs where status in ${FINISHED}
          and purge_after is distinct from ${s}purge_time(retention, status, finished_at)`,
    ],
    [
      'child whose parent is missing',
      `select j.id::text from ${s}jobs j where j.parent_id is not null
          and not exists (select 1 from ${s}jobs p where p.id = j.parent_id)`,
    ],
    [
      'member whose root is missing',
      `select j.id::text from ${s}jobs j where j.root_id is not null
          and not exists (select 1 from ${s}jobs r where r.id = j.root_id)`,
    ],
    [
      'member whose root is not a top',
      `select j.id::text from ${s}jobs j join ${s}jobs r on r.id = j.root_id where r.root_id is not null`,
    ],
    [
      'child in another tree than its parent',
      `select j.id::text from ${s}jobs j join ${s}jobs p on p.id = j.parent_id
          where j.root_id is distinct from coalesce(p.root_id, p.id)`,
    ],
    ['attempts above max_attempts', `select id::text from ${s}jobs where attempts > max_attempts`],
    ['waiting job without a wait', `select id::text from ${s}jobs where status = 'waiting' and wait is null`],
    [
      'paused job without the status it was paused from',
      `select id::text from ${s}jobs where status = 'paused'
          and (paused_from is null or paused_from not in ('pending','retry','waiting'))`,
    ],
    [
      'consumed signal without consumed_at',
      `select id::text from ${s}signals where consumed_at is null and (consumed_by is not null or purge_after is not null)`,
    ],
    [
      'two in-flight jobs holding one unique key',
      `select queue || ':' || unique_key from ${s}jobs where unique_key is not null and status in ${IN_FLIGHT}
          group by queue, unique_key having count(*) > 1`,
    ],
  ];
  // A row of any table that belongs to a job (job-removal.ts) whose job is gone.
  for (const table of JOB_DEPENDENTS) {
    rules.push([
      `${table} row of a missing job`,
      `select d.job_id::text from ${s}${table} d where not exists (select 1 from ${s}jobs j where j.id = d.job_id)`,
    ]);
  }
  return rules
    .map(([problem, query]) => `select '${problem}' as problem, x.* from (${query}) as x(subject)`)
    .join('\nunion all\n');
}

/** Every impossible state or orphan in the schema, as `problem: subject` lines (empty when consistent). */
export async function findInconsistencies(sql: RunSql, schema: string): Promise<string[]> {
  const rows = await sql<{ problem: string; subject: string }>(`${consistencySql(schema)} limit 50`);
  return rows.map((r) => `${r.problem}: ${r.subject}`);
}

export const TABLES = [
  'queues',
  'jobs',
  'checkpoints',
  'signals',
  'unique_locks',
  'schedules',
  'schedule_fires',
  'maintenance',
  'sweeps',
  'tidemark_migrations',
  'retention_holds',
  'retention_hold_jobs',
] as const;

/** Row counts of every Tidemark table, to show that a refused call wrote nothing. */
export async function rowCounts(
  sql: RunSql,
  schema: string,
  tables: readonly (typeof TABLES)[number][] = TABLES,
): Promise<Record<string, number>> {
  const text = tables
    .map((table) => `select '${table}' as t, count(*)::int as n from "${schema}".${table}`)
    .join(' union all ');
  const rows = await sql<{ t: string; n: number }>(text);
  return Object.fromEntries(rows.map((r) => [r.t, Number(r.n)]));
}
