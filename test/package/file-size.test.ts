import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sourceFiles } from '../support/source-files.js';

/** Small files with one job each: a file that outgrows this is split (docs/decisions.md, Layout). */
const MAX_LINES = 300;

test(`no file under src/ is over ${MAX_LINES} lines`, () => {
  const long = sourceFiles('src')
    .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines}`);
  assert.deepEqual(long, []);
});
