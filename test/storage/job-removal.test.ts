import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '../../src/index.js';
import type { Query, SizedQuery } from '../../src/storage/sql/define-query.js';
import { JOB_DEPENDENTS } from '../../src/storage/sql/job-removal.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';

const SQL_FOLDER = fileURLToPath(new URL('../../src/storage/sql/', import.meta.url));

/** Every statement defined in src/storage/sql, by module and export name. */
async function allQueries(): Promise<[string, Query<Record<string, unknown>>][]> {
  const found: [string, Query<Record<string, unknown>>][] = [];
  for (const file of readdirSync(SQL_FOLDER).filter((f) => f.endsWith('.ts'))) {
    const module = (await import(`../../src/storage/sql/${file.replace(/\.ts$/, '.js')}`)) as Record<
      string,
      unknown
    >;
    for (const [name, value] of Object.entries(module)) {
      if (value && typeof value === 'object' && 'statementName' in value && 'text' in value) {
        found.push([`${file} ${name}`, value as Query<Record<string, unknown>>]);
      } else if (typeof value === 'function' && 'sized' in value) {
        found.push([`${file} ${name}`, (value as SizedQuery<Record<string, unknown>>)(1_000)]);
      }
    }
  }
  return found;
}

describeEachDriver('one way out for jobs and everything that hangs off them', ({ open }) => {
  test('every table with a job_id column is deleted with its job, and has an index led by job_id', async () => {
    const tm = await open({ logger: silentLogger });
    const rows = await rawQuery<{ table: string; indexed: boolean }>(
      tm,
      `select c.relname as table,
              exists (select 1 from pg_index i where i.indrelid = c.oid and i.indkey[0] = a.attnum) as indexed
         from pg_class c
         join pg_namespace n on n.oid = c.relnamespace
         join pg_attribute a on a.attrelid = c.oid and a.attname = 'job_id' and not a.attisdropped
        where n.nspname = $1 and c.relkind in ('r', 'p')
        order by c.relname`,
      [tm.schema],
    );
    assert.deepEqual(
      rows.map((r) => r.table),
      [...JOB_DEPENDENTS].sort(),
      'a table holding job_id that the shared delete does not cover would be left with orphans',
    );
    for (const row of rows) assert.equal(row.indexed, true, `${row.table} has an index led by job_id`);
  });

  test('no foreign key references jobs: no delete pays a cascade trigger per row', async () => {
    const tm = await open({ logger: silentLogger });
    const rows = await rawQuery(
      tm,
      `select conname from pg_constraint where contype = 'f' and confrelid = $1::regclass`,
      [`"${tm.schema}".jobs`],
    );
    assert.deepEqual(rows, []);
  });

  test('every statement that deletes jobs deletes the rows of every dependent table too', async () => {
    const tm = await open({ logger: silentLogger });
    const deleting = (await allQueries()).filter(([, q]) =>
      new RegExp(`delete from "${tm.schema}"\\.jobs\\b`).test(q.text(tm.schema)),
    );
    assert.ok(deleting.length >= 4, `found ${deleting.map(([n]) => n).join(', ')}`);
    for (const [name, query] of deleting) {
      const text = query.text(tm.schema);
      for (const table of JOB_DEPENDENTS) {
        assert.match(
          text,
          new RegExp(`delete from "${tm.schema}"\\.${table}\\b`),
          `${name} deletes ${table}`,
        );
      }
    }
  });
});
