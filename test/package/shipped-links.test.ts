import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');

/** What `npm pack` ships: package.json's `files`, and the files npm always includes. */
function shipped(path: string): boolean {
  const { files } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  return ['package.json', ...files].some((entry) => path === entry || path.startsWith(`${entry}/`));
}

/** Every relative link (`](path)` or `](path#anchor)`) of a Markdown file, resolved from the repository root. */
function relativeLinks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1].split('#')[0])
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target))
    .map((target) => normalize(join(dirname(file), target)));
}

test('every relative link of the README and the shipped docs names a file the package ships', () => {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  const broken: string[] = [];
  for (const file of ['README.md', ...docs]) {
    for (const target of relativeLinks(file)) {
      const path = relative(ROOT, join(ROOT, target));
      if (!existsSync(join(ROOT, path))) broken.push(`${file} → ${path} (no such file)`);
      else if (!shipped(path)) broken.push(`${file} → ${path} (not in the package's files)`);
    }
  }
  assert.deepEqual(broken, [], 'a link an installed package would break');
});
