import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dropSchema, freshSchema, PG_URL, TEST_DRIVERS } from '../support/databases.js';
import { scriptArgs } from '../support/node-args.js';

const APP = fileURLToPath(new URL('./fixtures/app-without-logger.ts', import.meta.url));

/** Run the app in its own process; resolves to its exit code and the lines it printed. */
function runApp(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, scriptArgs(APP), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  return new Promise((resolve) =>
    child.once('exit', (code) => resolve({ code, lines: output.split('\n').filter((line) => line !== '') })),
  );
}

// What a process prints does not depend on the driver; the app runs on the embedded database,
// the default a new user starts with, unless the run is PostgreSQL only.
const kind = TEST_DRIVERS.includes('pglite') ? 'pglite' : TEST_DRIVERS[0];
if (kind) {
  describe(`an app with no logger says what retention will delete [${kind}]`, () => {
    const schemas: string[] = [];
    after(async () => {
      for (const schema of schemas) await dropSchema(kind, schema);
    });
    const envFor = (scenario: string): Record<string, string> => {
      const schema = freshSchema();
      schemas.push(schema);
      return kind === 'pg'
        ? { APP_SCENARIO: scenario, APP_DATABASE: PG_URL, APP_SCHEMA: schema }
        : { APP_SCENARIO: scenario };
    };

    test('the default logger prints the worker retention line, and nothing else', async () => {
      const { code, lines } = await runApp(envFor('stock'));
      assert.equal(code, 0, lines.join('\n'));
      assert.equal(lines.length, 1, lines.join('\n'));
      const [line] = lines;
      assert.match(line, /^INFO tidemark: retention sweep enabled worker=\S+ /);
      assert.match(line, / completedAfterSeconds=2592000 failedAfterSeconds=7776000 /);
      assert.match(line, / intervalSeconds=3600 batchSize=1000 /);
      assert.match(
        line,
        / queuesWithOwnPolicy=\{"emails":\{"completed":3600,"failed":null,"cancelled":null,"expired":null,"consumedSignals":null\}\} /,
        'names the queue whose stored policy differs from the engine default, and only that one',
      );
      assert.match(line, /tm\.pauseRetention\(\{ reason \}\)/, 'says how to stop it');
    });

    test('retention: false warns that jobs with a window are still deleted, with their number', async () => {
      const { code, lines } = await runApp(envFor('keep'));
      assert.equal(code, 0, lines.join('\n'));
      const keep = lines.filter((line) => line.includes('retention: false on the engine'));
      assert.equal(keep.length, 1, lines.join('\n'));
      assert.match(keep[0], /^WARN tidemark: /);
      assert.match(keep[0], / finishedJobsWithWindow=1 /);
      assert.match(keep[0], /tm\.pauseRetention/);
      assert.deepEqual(
        lines.filter((line) => line !== keep[0]).map((line) => line.slice(0, 60)),
        ['WARN tidemark: retention sweep is disabled; finished jobs an'],
        'besides it only the first worker (sweep: false) says it does not sweep',
      );
    });

    test('while paused, the worker warns that nothing is deleted, with the reason', async () => {
      const { code, lines } = await runApp(envFor('paused'));
      assert.equal(code, 0, lines.join('\n'));
      const paused = lines.filter((line) => line.includes('retention is paused'));
      assert.equal(paused.length, 1, lines.join('\n'));
      assert.match(paused[0], /^WARN tidemark: retention is paused cluster-wide/);
      assert.match(paused[0], / reason=audit in progress /);
      assert.ok(
        lines.every(
          (line) => line === paused[0] || line.startsWith('WARN tidemark: retention paused cluster-wide'),
        ),
        lines.join('\n'),
      );
    });
  });
}
