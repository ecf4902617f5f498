import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderOptionTables } from '../../scripts/options-tables.js';
import { OPTION_SETS } from '../../src/option-sets.js';
import { optionsTable } from '../../src/options/docs-table.js';
import { integer, seconds } from '../../src/options/fields.js';
import { OptionSet } from '../../src/options/option-set.js';

const DOC = 'docs/configuration.md';

test('every options table of docs/configuration.md is what the declarations state', () => {
  const text = readFileSync(DOC, 'utf8');
  assert.equal(text, renderOptionTables(text, OPTION_SETS), 'run npm run docs:options');
});

test('every option set but the child subset has its table in docs/configuration.md', () => {
  const text = readFileSync(DOC, 'utf8');
  const marked = [...text.matchAll(/<!-- options:([a-z-]+) -->/g)].map((m) => m[1]);
  assert.deepEqual(
    marked.sort(),
    Object.keys(OPTION_SETS)
      .filter((id) => id !== 'child')
      .sort(),
  );
});

test('a table follows its declaration: a changed range, default or meaning is a changed row', () => {
  const set = new OptionSet('demo', {
    size: integer(1, 50, { default: 5, description: 'how many' }),
    wait: seconds({ exclusiveMin: true, max: 60 }, { description: 'how long' }),
  });
  assert.equal(
    optionsTable(set),
    [
      '| option | type | default | meaning |',
      '|---|---|---|---|',
      '| `size` | `number` (whole, 1 to 50) | `5` | how many |',
      '| `wait` | `number` (> 0, up to 60) | none | how long |',
    ].join('\n'),
  );
  const doc =
    '<!-- options:demo -->\n| option | type | default | meaning |\n|---|---|---|---|\n| `size` | old |\n';
  assert.notEqual(renderOptionTables(doc, { demo: set }), doc);
  assert.throws(() => renderOptionTables('<!-- options:nope -->\n', { demo: set }), /no option set 'nope'/);
});
