import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError } from '../../src/index.js';
import { toKnexBindings } from '../../src/storage/adapters/knex-placeholders.js';
import { everyQuery } from '../support/every-query.js';

const PARAMS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'];

test('each $n becomes ? with its value bound once per use, $10 and $11 read as themselves', () => {
  assert.deepEqual(toKnexBindings('select $1, $10, $1, $11, $2', PARAMS), {
    sql: 'select ?, ?, ?, ?, ?',
    bindings: ['a', 'j', 'a', 'k', 'b'],
  });
});

test("the text's own ? (jsonb ?, ?|, ?&) is escaped for Knex, inside literals and comments too", () => {
  assert.deepEqual(toKnexBindings("select x ? 'k', x ?| $1, x ?& array['?'] -- ?\n/* ? */", ['a']), {
    sql: "select x \\? 'k', x \\?| ?, x \\?& array['\\?'] -- \\?\n/* \\? */",
    bindings: ['a'],
  });
});

test('$n inside quotes, comments and dollar quotes, or ending a name, is left as written', () => {
  const sql = [
    "'$1 it''s $2'",
    "E'\\' $1'",
    '"col$1"',
    'name$1',
    '-- $1\n',
    '/* $1 /* nested $1 */ $1 */',
    '$$ $1 $$',
    '$tag$ $1 $tag$',
    '$2',
  ].join(' ');
  const out = toKnexBindings(sql, PARAMS);
  assert.equal(out.sql, sql.replace(/\$2$/, '?'));
  assert.deepEqual(out.bindings, ['b']);
});

test('a $n beyond the values given is refused, naming it', () => {
  assert.throws(
    () => toKnexBindings('select $1, $3', ['a', 'b']),
    (error: unknown) => error instanceof InvalidOptionError && /\$3/.test(error.message),
  );
});

test('a backslash before a ? in the text is refused: Knex would drop it (and could bind a phantom $n)', () => {
  for (const sql of [
    "select '\\?', $1",
    "select E'\\\\?' || $1",
    'select $$ \\? $$, $1',
    'select $1 -- \\?\n',
  ]) {
    assert.throws(
      () => toKnexBindings(sql, ['a']),
      (e: unknown) => e instanceof InvalidOptionError && e.details.field === 'text',
      sql,
    );
  }
});

test("every statement Tidemark runs passes through Knex's rewrite, each $n bound", async () => {
  const queries = await everyQuery();
  assert.ok(queries.length > 100);
  for (const { id, query } of queries) {
    const text = query.text('tidemark');
    const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const { sql, bindings } = toKnexBindings(
      text,
      Array.from({ length: count }, (_, k) => k),
    );
    // Each placeholder Knex will number is one binding; every other ? stays escaped.
    assert.equal(sql.match(/(?<!\\)\?/g)?.length ?? 0, bindings.length, id);
  }
});
