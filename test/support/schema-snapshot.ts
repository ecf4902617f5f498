/** The schema after every migration: tables, columns, indexes, constraints and functions. */
export async function schemaSnapshot(
  sql: (text: string) => Promise<Record<string, unknown>[]>,
): Promise<string> {
  const lines = (rows: Record<string, unknown>[]) => rows.map((r) => String(r.line)).join('\n');
  const columns = await sql(`
    select format('%s.%s %s%s%s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                  case when a.attnotnull then ' not null' else '' end,
                  coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')) as line
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
     where n.nspname = current_schema() and c.relkind in ('r', 'p')
     order by c.relname, a.attnum`);
  const indexes = await sql(`
    select replace(indexdef, current_schema() || '.', '') as line from pg_indexes
     where schemaname = current_schema() order by tablename, indexname`);
  const constraints = await sql(`
    select format('%s %s %s', c.relname, k.conname, pg_get_constraintdef(k.oid)) as line
      from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = current_schema() and k.contype <> 'n' -- not-null: in the columns already (PostgreSQL 18 lists them here too)
     order by c.relname, k.conname`);
  const functions = await sql(`
    select format('%s(%s)', p.proname, pg_get_function_identity_arguments(p.oid)) as line
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname = current_schema() order by 1`);
  return [
    '-- columns',
    lines(columns),
    '-- indexes',
    lines(indexes),
    '-- constraints',
    lines(constraints),
    '-- functions',
    lines(functions),
    '',
  ].join('\n');
}
