import { existsSync } from 'node:fs';

/**
 * The arguments a test gives `node` to run a TypeScript script of this repository in a
 * process of its own (a fixture, a CLI, an example): tsx, and V8's baseline WebAssembly
 * compiler only. PGlite is one large WebAssembly module; a process that lives for seconds
 * spent about a third of its CPU having V8's optimising compiler recompile its hot functions,
 * more than the faster code gave back (scripts/run-tests.mjs runs the test files so too).
 */
export const TS_NODE_ARGS: readonly string[] = ['--liftoff-only', '--import', 'tsx'];

/** This module runs compiled (scripts/compile-tests.mjs), and so do the tests beside it. */
const COMPILED = import.meta.url.endsWith('.js');

/**
 * The arguments that run the script at `path`: its compiled twin when the tests run compiled
 * and the script is one of theirs (a path found from a test's own location), else the script
 * itself through tsx (TS_NODE_ARGS). The twin saves the process about a second of CPU.
 */
export function scriptArgs(path: string): string[] {
  const twin = path.replace(/\.ts$/, '.js');
  if (COMPILED && twin !== path && existsSync(twin)) return ['--liftoff-only', '--enable-source-maps', twin];
  return [...TS_NODE_ARGS, path];
}

/**
 * This process's environment for a node process it starts, with `changes` made (a name set to
 * undefined is left out), and without the mark node's test runner gives the files it runs: left
 * in, a node:test file or runner in the child would report to this runner rather than print.
 */
export function childNodeEnv(changes: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _runnerMark, ...env } = process.env;
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}
