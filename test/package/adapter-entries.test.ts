import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const ROOT = resolve('.');

/** The adapter subpaths, as package.json exports them, with the function each must export. */
const ADAPTERS: Record<string, string> = {
  'tidemark/kysely': 'fromKysely',
  'tidemark/drizzle': 'fromDrizzle',
  'tidemark/prisma': 'fromPrisma',
  'tidemark/postgres-js': 'fromPostgresJs',
  'tidemark/knex': 'fromKnex',
};

// As in entry-loads.test.ts: a loader hook that appends every module URL it loads to a file.
const RECORDER = `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) {
  appendFileSync(file, url + '\\n');
  return next(url, context);
}`;

/**
 * Import `specifiers` as an installed app would (the package's own name resolves through its
 * exports to the built dist/), one after the other in one fresh process: the URLs loaded, and
 * each entry's export names.
 */
function load(specifiers: string[], record: string): { urls: string[]; exports: Record<string, string[]> } {
  const script = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDER)}`)}, { data: { file: ${JSON.stringify(record)} } });
const names = {};
for (const specifier of ${JSON.stringify(specifiers)}) names[specifier] = Object.keys(await import(specifier));
console.log(JSON.stringify(names));`;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { urls: readFileSync(record, 'utf8').split('\n').filter(Boolean), exports: JSON.parse(out) };
}

describe('the adapter entries (tidemark/kysely, ...)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidemark-adapters-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('package.json exports each adapter from dist/, and no other adapter', () => {
    const { exports } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, { import: string }>;
    };
    const adapters = Object.entries(exports)
      .filter(([, target]) => target.import?.includes('/adapters/'))
      .map(([path]) => `tidemark${path.slice(1)}`);
    assert.deepEqual(adapters.sort(), Object.keys(ADAPTERS).sort());
  });

  test('each adapter entry exports its function and loads nothing from node_modules: not its library, nor any other', () => {
    const { urls, exports } = load(Object.keys(ADAPTERS), join(dir, 'adapters.txt'));
    for (const [specifier, name] of Object.entries(ADAPTERS)) {
      assert.ok(exports[specifier].includes(name), `${specifier} exports ${name}: ${exports[specifier]}`);
    }
    assert.ok(
      urls.some((url) => url.includes('/dist/storage/adapters/')),
      `the recorder saw the adapters load:\n${urls.join('\n')}`,
    );
    assert.deepEqual(
      urls.filter((url) => url.includes('/node_modules/')),
      [],
    );
  });

  test("the recorder sees a package load from node_modules (import 'tidemark' loads pg)", () => {
    const { urls } = load(['tidemark'], join(dir, 'core.txt'));
    assert.ok(
      urls.some((url) => url.includes('/node_modules/pg/')),
      urls.join('\n'),
    );
  });
});
