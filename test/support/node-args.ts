/**
 * The arguments a test gives `node` to run a TypeScript script of this repository in a
 * process of its own (a fixture, a CLI, an example): tsx, and V8's baseline WebAssembly
 * compiler only. PGlite is one large WebAssembly module; a process that lives for seconds
 * spent about a third of its CPU having V8's optimising compiler recompile its hot functions,
 * more than the faster code gave back (scripts/run-tests.mjs runs the test files so too).
 */
export const TS_NODE_ARGS: readonly string[] = ['--liftoff-only', '--import', 'tsx'];
