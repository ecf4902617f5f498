// Writes the options tables of docs/configuration.md (and any other doc holding a
// `<!-- options:<id> -->` marker) from the option sets' declarations.
// Usage: npm run docs:options
import { readFileSync, writeFileSync } from 'node:fs';
import { OPTION_SETS } from '../src/option-sets.js';
import { renderOptionTables } from './options-tables.js';

for (const file of ['docs/configuration.md', 'docs/workflows.md']) {
  const before = readFileSync(file, 'utf8');
  const after = renderOptionTables(before, OPTION_SETS);
  if (after !== before) {
    writeFileSync(file, after);
    console.log(`${file}: tables written`);
  }
}
