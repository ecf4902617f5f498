import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { TS_NODE_ARGS } from '../support/node-args.js';

const ROOT = resolve('.');

// A loader hook that appends every module URL it loads to a file. It runs in the hooks
// thread and writes synchronously before the module is handed back, so once the import
// has resolved, the file holds every module that import loaded.
const RECORDER = `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) {
  appendFileSync(file, url + '\\n');
  return next(url, context);
}`;

/** The repository files (relative, with '/') that a fresh process loads to import `entry`. */
function modulesLoadedBy(entry: string, record: string): string[] {
  const script = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORDER)}`)}, { data: { file: ${JSON.stringify(record)} } });
await import(${JSON.stringify(pathToFileURL(join(ROOT, entry)).href)});`;
  execFileSync(process.execPath, [...TS_NODE_ARGS, '--input-type=module', '-e', script], { cwd: ROOT });
  const root = `${pathToFileURL(ROOT).href}/`;
  return readFileSync(record, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith(root))
    .map((url) => url.slice(root.length).replace(/\?.*$/, ''));
}

describe('what an entry point loads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidemark-loads-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("import 'tidemark' loads no dashboard, HTTP API or CLI module", () => {
    const loaded = modulesLoadedBy('src/index.ts', join(dir, 'core.txt'));
    assert.ok(loaded.includes('src/tidemark.ts'), `the recorder saw the engine load:\n${loaded.join('\n')}`);
    const wrong = loaded.filter(
      (path) =>
        path.startsWith('src/dashboard/') || path.startsWith('src/http-api/') || path.startsWith('src/cli/'),
    );
    assert.deepEqual(wrong, [], 'dashboard, HTTP API and CLI modules stay out of the core entry');
  });

  test("import 'tidemark/dashboard' loads the dashboard (the recorder sees what it should)", () => {
    const loaded = modulesLoadedBy('src/dashboard/index.ts', join(dir, 'dashboard.txt'));
    assert.ok(loaded.includes('src/dashboard/handler.ts'), loaded.join('\n'));
    assert.ok(!loaded.some((path) => path.startsWith('src/cli/')), 'the dashboard loads no CLI module');
  });

  test("import 'tidemark/http-api' loads the API and neither the dashboard nor the CLI", () => {
    const loaded = modulesLoadedBy('src/http-api/index.ts', join(dir, 'http-api.txt'));
    assert.ok(loaded.includes('src/http-api/handler.ts'), loaded.join('\n'));
    const wrong = loaded.filter((path) => path.startsWith('src/dashboard/') || path.startsWith('src/cli/'));
    assert.deepEqual(wrong, []);
  });
});
