import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dropSchema, freshSchema, PG_URL, TEST_DRIVERS } from '../support/databases.js';
import { childNodeEnv, TS_NODE_ARGS } from '../support/node-args.js';

// Every program in examples/ runs as a user would run it (`npx tsx examples/<file>`), in a
// process of its own, from the repository root: there tsconfig.json's `paths` resolves
// 'tidemark' to src/index.ts, so the examples keep the import a user's copy needs and run
// against the code as it is, without a build.
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runExample(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return runNode([...TS_NODE_ARGS, ...args], env);
}

function runNode(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO, env: childNodeEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function assertRan(run: Run, ...lines: RegExp[]): void {
  const shown = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  assert.equal(run.code, 0, `the example exited with ${run.code}\n${shown}`);
  for (const line of lines) assert.match(run.stdout, line, shown);
}

// Each example boots its own embedded database (seconds of CPU): two at a time on a 2-core box.
const options = { concurrency: 2 };
// A generous bound, not a measurement: it only stops a hung example from hanging the suite.
const timeout = 180_000;

if (TEST_DRIVERS.includes('pglite')) {
  describe('examples on embedded PGlite', options, () => {
    test('quick-start.ts', { timeout }, async () => {
      const run = await runExample(['examples/quick-start.ts']);
      assertRan(run, /^result: \{"sent":true\}$/m, /^status: completed, attempts: 1$/m);
      // The default logger announces what retention will delete, on stderr.
      assert.match(run.stderr, /retention sweep enabled/);
    });

    test('workflow.ts', { timeout }, async () => {
      assertRan(
        await runExample(['examples/workflow.ts']),
        /^signal: \{"delivered":true\}$/m,
        /^result: .*"status":"shipped"/m,
        /^result: .*"label":"label-7"/m,
        /^checkpoints: charge \(step\), cool-off \(sleep\), wait:approval#1 \(wait\), child:child#1 \(child\)$/m,
        /^children: shipping #\d+ completed$/m,
        /the charge step ran once$/m,
      );
    });

    test('retention.ts', { timeout }, async () => {
      assertRan(
        await runExample(['examples/retention.ts']),
        /^dry run: 3 jobs would go/m,
        /^sweep: deleted 3 jobs/m,
        /^retention status: paused=false, holds=1$/m,
        /^after releasing the hold: deleted 1 more$/m,
      );
    });

    test('add-in-transaction.ts without DATABASE_URL (a PGlite transaction)', { timeout }, async () => {
      assertRan(
        await runExample(['examples/add-in-transaction.ts'], { DATABASE_URL: undefined }),
        /^on embedded PGlite/m,
        /^job \d+: confirmation sent for order \d+$/m,
        /^after the rollback: order \d+ absent, job \d+ absent$/m,
      );
    });

    test('test-kit.test.ts', { timeout }, async () => {
      assertRan(
        await runExample(['--test', '--test-reporter=tap', 'examples/test-kit.test.ts']),
        /^# pass 4$/m,
        /^# fail 0$/m,
      );
    });

    test('testing-handlers.test.ts', { timeout }, async () => {
      assertRan(
        await runExample(['--test', '--test-reporter=tap', 'examples/testing-handlers.test.ts']),
        /^# pass 5$/m,
        /^# fail 0$/m,
      );
    });

    test('vitest/test-kit.test.ts, under vitest', { timeout }, async () => {
      const vitest = join(REPO, 'node_modules', 'vitest', 'vitest.mjs');
      const config = 'examples/vitest/vitest.config.ts';
      const run = await runNode([vitest, 'run', '--config', config, '--reporter=tap-flat'], {
        NO_COLOR: '1',
      });
      assertRan(run, /^1\.\.3$/m, /^ok 1 - .*bad data is refused/m, /^ok 3 - .*a payment stops/m);
      assert.doesNotMatch(run.stdout, /^not ok/m);
    });
  });
}

if (TEST_DRIVERS.includes('pg')) {
  describe('examples on PostgreSQL', () => {
    test('add-in-transaction.ts with DATABASE_URL (a pg client in BEGIN … COMMIT)', {
      timeout,
    }, async (t) => {
      const schema = freshSchema();
      t.after(() => dropSchema('pg', schema));
      assertRan(
        await runExample(['examples/add-in-transaction.ts'], {
          DATABASE_URL: PG_URL,
          EXAMPLE_SCHEMA: schema,
        }),
        /^on PostgreSQL/m,
        /^job \d+: confirmation sent for order \d+$/m,
        /^after the rollback: order \d+ absent, job \d+ absent$/m,
      );
    });
  });
}
