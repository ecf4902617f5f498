// Compiles src/, test/ and scripts/ to JavaScript for one run of the tests (scripts/run-tests.mjs), so that
// neither the test files' processes nor the scripts they start load TypeScript through tsx.
// tsx's loader runs on a thread of its own in Node 20, and every module a process loads makes
// a round trip to it: a test file's process spent about a second of CPU more on that than the
// same process on JavaScript.
//
// The tree it makes mirrors the repository: each .ts file of those folders compiled beside a
// link to its source, every other file of theirs linked, and every other top-level entry
// (docs/, dist/, node_modules/, package.json...) linked, so a test that finds a file from its
// own location (import.meta) finds the repository's. It transpiles only, as tsx does (same
// esbuild, same options); the types are checked by `npm run typecheck`.
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The folders compiled: the engine, its tests, and the scripts the tests import. */
const COMPILED = ['src', 'test', 'scripts'];

/** Compile `repo`'s src/, test/ and scripts/ into a new folder under the system's temporary folder; its path. */
export async function compileTests(repo) {
  const out = mkdtempSync(join(tmpdir(), 'tidemark-tests-'));
  const modules = [];
  const commonJs = [];
  const link = (path) => symlinkSync(join(repo, path), join(out, path));
  const mirror = (dir) => {
    mkdirSync(join(out, dir));
    for (const entry of readdirSync(join(repo, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        mirror(path);
        continue;
      }
      link(path);
      if (path.endsWith('.d.ts')) continue;
      if (path.endsWith('.ts')) modules.push(path);
      else if (path.endsWith('.cts')) commonJs.push(path);
    }
  };
  for (const entry of readdirSync(repo)) {
    if (COMPILED.includes(entry)) mirror(entry);
    else if (entry !== '.git') link(entry);
  }
  const options = {
    absWorkingDir: repo,
    outdir: out,
    outbase: repo,
    platform: 'node',
    target: `node${process.versions.node}`,
    sourcemap: 'inline',
    keepNames: true,
    logLevel: 'error',
  };
  await build({ ...options, entryPoints: modules, format: 'esm' });
  if (commonJs.length > 0)
    await build({ ...options, entryPoints: commonJs, format: 'cjs', outExtension: { '.js': '.cjs' } });
  return out;
}
