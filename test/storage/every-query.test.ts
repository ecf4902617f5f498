import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Query } from '../../src/storage/sql/define-query.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { everyQuery } from '../support/every-query.js';

const SNAPSHOT_DIR = join('test', 'storage', 'snapshots');
/** Set to rewrite the snapshots after a deliberate change of SQL or schema. */
const UPDATE = process.env.TIDEMARK_UPDATE_SNAPSHOTS === '1';

/** What a reviewer reads when SQL changes: each statement's text, as the default schema sees it. */
function queriesSnapshot(queries: { id: string; query: Query<Record<string, unknown>> }[]): string {
  return queries.map(({ id, query }) => `-- ${id}\n${query.text('tidemark').trim()}\n`).join('\n');
}

/** The schema after every migration: tables, columns, indexes, constraints and functions. */
async function schemaSnapshot(sql: (text: string) => Promise<Record<string, unknown>[]>): Promise<string> {
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

function compareWithSnapshot(file: string, actual: string): void {
  const path = join(SNAPSHOT_DIR, file);
  if (UPDATE) {
    writeFileSync(path, actual);
    return;
  }
  const expected = readFileSync(path, 'utf8');
  assert.equal(
    actual,
    expected,
    `${path} is out of date: review the change, then run TIDEMARK_UPDATE_SNAPSHOTS=1 node scripts/run-tests.mjs test/storage/every-query.test.ts`,
  );
}

describeEachDriver('every query and the schema', ({ kind, open }) => {
  let snapshotsWritten = false;
  after(() => {
    if (UPDATE && snapshotsWritten) process.stderr.write(`snapshots rewritten in ${SNAPSHOT_DIR}\n`);
  });

  test('every statement under src/storage/sql is prepared by the database without error', async () => {
    const tm = await open();
    const queries = await everyQuery();
    assert.ok(queries.length >= 60, `found ${queries.length} statements`);
    const failures: string[] = [];
    for (const [i, { id, query }] of queries.entries()) {
      // PREPARE parses, resolves every name and infers each parameter's type, and runs nothing.
      // Maintenance commands cannot be prepared; on a new schema they are cheap to run instead.
      const text = query.text(tm.schema);
      try {
        // The test kit's clock table exists on its engines only: test/testing/clock-rewrite.test.ts.
        if (text.includes('tidemark_test_clock')) continue;
        if (/^\s*(vacuum|analyze)\b/i.test(text)) {
          await rawQuery(tm, text);
          continue;
        }
        await rawQuery(tm, `prepare tm_every_query_${i} as ${text}`);
        await rawQuery(tm, `deallocate tm_every_query_${i}`);
      } catch (error) {
        failures.push(`${id}: ${(error as Error).message}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  test('the SQL text of every statement and the migrated schema match their snapshots', async () => {
    const queries = await everyQuery();
    const tm = await open();
    await rawQuery(tm, `set search_path to "${tm.schema}"`);
    const schema = await schemaSnapshot((text) => rawQuery(tm, text));
    await rawQuery(tm, 'set search_path to public');
    // One snapshot serves both drivers: PGlite and PostgreSQL must agree on the schema too.
    compareWithSnapshot('queries.sql', queriesSnapshot(queries));
    compareWithSnapshot('schema.sql', schema);
    snapshotsWritten = true;
    assert.ok(kind);
  });
});
