import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { migrations } from '../../src/storage/migrations/index.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** The text of a Markdown section, from its heading to the next heading of any level. */
function section(file: string, heading: string): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has the section ${heading}`);
  const rest = text.slice(start + heading.length + 2);
  const end = rest.search(/^#{1,6} /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Every name the migrations create of one kind (`table`, `function`, `index`). */
function created(kind: string): string[] {
  const all = migrations.map((m) => m.sql).join('\n');
  const on = kind === 'index' ? '(?:unique\\s+)?index\\s+' : `${kind}\\s+/\\*schema\\*/`;
  return [...all.matchAll(new RegExp(`create\\s+(?:or\\s+replace\\s+)?${on}(\\w+)`, 'gi'))].map((m) => m[1]);
}

test('configuration.md names every table and function Tidemark creates, for a schema it shares', () => {
  const text = section('docs/configuration.md', '### Sharing a schema');
  const missing = [...created('table'), ...created('function'), 'tidemark_migrations'].filter(
    (name) => !text.includes(`\`${name}\``),
  );
  assert.deepEqual(missing, [], 'names a shared schema must leave free, missing from the list');
});

test('every index is named after its table, as configuration.md says', () => {
  const tables = created('table');
  const indexes = created('index');
  assert.ok(indexes.length > 10);
  assert.deepEqual(
    indexes.filter((index) => !tables.some((table) => index.startsWith(`${table}_`))),
    [],
  );
});
