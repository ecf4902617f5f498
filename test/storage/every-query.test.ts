import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { Query } from '../../src/storage/sql/define-query.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { everyQuery } from '../support/every-query.js';
import { schemaSnapshot } from '../support/schema-snapshot.js';

const SNAPSHOT_DIR = join('test', 'storage', 'snapshots');
/** Set to rewrite the snapshots after a deliberate change of SQL or schema. */
const UPDATE = process.env.TIDEMARK_UPDATE_SNAPSHOTS === '1';

/** What a reviewer reads when SQL changes: each statement's text, as the default schema sees it. */
function queriesSnapshot(queries: { id: string; query: Query<Record<string, unknown>> }[]): string {
  return queries.map(({ id, query }) => `-- ${id}\n${query.text('tidemark').trim()}\n`).join('\n');
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
