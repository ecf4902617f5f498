import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  type BlockError,
  checkBlocks,
  documentationFiles,
  extractBlocks,
  formatError,
  readDoc,
} from './check-blocks.js';
import { DOC_GLOBALS } from './doc-globals.js';

// A Markdown file with one block of each kind the checker must tell apart. It is checked in
// the same Program as the documentation, so proving the checker costs no second compile.
const FIXTURE = [
  '# Fixture', // 1
  '', // 2
  '```ts', // 3
  "const n: number = 'one';", // 4
  '```', // 5
  '', // 6
  '```sh', // 7
  'this is not code', // 8
  '```', // 9
  '', // 10
  '<!-- ts-preamble: declare const given: string; -->', // 11
  '```ts', // 12
  'export const upper: string = given.toUpperCase();', // 13
  '```', // 14
  '', // 15
  '- In a list:', // 16
  '', // 17
  '  ```ts', // 18
  '  const fine = 1;', // 19
  '  const bad: string = fine;', // 20
  '  ```', // 21
  '', // 22
  '<!-- ts-preamble: declare const broken: NoSuchType; -->', // 23
  '```typescript', // 24
  'export {};', // 25
  '```', // 26
  '', // 27
  '```js', // 28
  "export const text = (1).toFixed('two');", // 29
  '```', // 30
  '', // 31
  '```', // 32
  'a bare fence is not code either', // 33
  '```', // 34
].join('\n');

const files = documentationFiles();
const docBlocks = files.flatMap((file) => extractBlocks(file, readDoc(file)));
const fixtureBlocks = extractBlocks('fixture.md', FIXTURE);

describe('documentation code blocks', () => {
  let errors: BlockError[] = [];
  let elapsedMs = 0;
  before(() => {
    const started = performance.now();
    errors = checkBlocks([...docBlocks, ...fixtureBlocks], DOC_GLOBALS);
    elapsedMs = performance.now() - started;
  });

  test('every ts and js block of README.md and docs/*.md compiles under strict', (t) => {
    const counts = files.map((file) => `${file} ${docBlocks.filter((b) => b.file === file).length}`);
    t.diagnostic(
      `${docBlocks.length} blocks in one program, ${Math.round(elapsedMs)} ms: ${counts.join(', ')}`,
    );
    assert.ok(docBlocks.length > 0, 'no blocks found: is the extractor broken?');
    const inDocs = errors.filter((e) => e.block.file !== 'fixture.md');
    assert.equal(
      inDocs.length,
      0,
      `documentation blocks that do not compile (fix the block, declare what it assumes in a ` +
        `<!-- ts-preamble: … --> comment above it, or fence it as text/sh if it is not code):\n` +
        inDocs.map(formatError).join('\n'),
    );
  });

  test('the checker reads ts, typescript and js fences only, and reports Markdown lines', () => {
    assert.deepEqual(
      fixtureBlocks.map((b) => [b.line, b.lang]),
      [
        [3, 'ts'],
        [12, 'ts'],
        [18, 'ts'],
        [24, 'ts'],
        [28, 'js'],
      ],
    );
    assert.equal(fixtureBlocks[1].preamble, 'declare const given: string;');
    assert.equal(fixtureBlocks[2].code, 'const fine = 1;\nconst bad: string = fine;');
    const reported = errors
      .filter((e) => e.block.file === 'fixture.md')
      .map((e) => [e.block.line, e.line, e.code]);
    assert.deepEqual(reported, [
      [3, 4, 2322],
      [18, 20, 2322],
      [24, null, 2304],
      [28, 29, 2345],
    ]);
    const [first, , inPreamble] = errors.filter((e) => e.block.file === 'fixture.md');
    assert.match(
      formatError(first),
      /^fixture\.md:4 \(block at line 3\): TS2322: Type 'string' is not assignable/,
    );
    assert.match(
      formatError(inPreamble),
      /^fixture\.md:24 \(the ts-preamble of the block at line 24\): TS2304/,
    );
  });
});
