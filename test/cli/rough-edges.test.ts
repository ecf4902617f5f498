import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { captureIo, cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER, PG_URL, rawQuery } from '../support/databases.js';
import { TS_NODE_ARGS } from '../support/node-args.js';

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

describe('tidemark CLI: version, help and failures a user meets first', () => {
  test('--version, -v and version print the package version', async () => {
    for (const flag of ['--version', '-v', 'version']) {
      const { code, io } = await runCli([flag]);
      assert.equal(code, 0, flag);
      assert.equal(io.out(), `tidemark ${VERSION}\n`, flag);
    }
  });

  test('help <command> prints that command’s usage; help of an unknown command exits 2', async () => {
    const { code, io } = await runCli(['help', 'sweep']);
    assert.equal(code, 0);
    assert.match(io.out(), /^Usage: tidemark sweep/);
    assert.doesNotMatch(io.out(), /Commands:/);
    const unknown = await runCli(['help', 'frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.io.err(), /unknown command 'frobnicate'/);
  });

  test('an unreachable server is one line with a hint and exit 1, not a stack trace', async () => {
    const url = 'postgres://postgres:secret@127.0.0.1:1/test';
    const { code, io } = await runCli(['stats', '--database', url]);
    assert.equal(code, 1);
    const lines = io.err().trimEnd().split('\n');
    assert.equal(lines.length, 1, io.err());
    assert.match(
      lines[0],
      /^tidemark stats: cannot connect to postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/test: connection refused\. Is PostgreSQL running there\?/,
    );
    assert.doesNotMatch(io.err(), /secret/);
  });

  test('a reader that closes the pipe early does not crash the command (no EPIPE)', async () => {
    const child = spawn(process.execPath, [...TS_NODE_ARGS, 'src/cli/bin.ts', 'help', 'purge'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Close the read end before the command writes, as `| head -0` would.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.doesNotMatch(stderr, /EPIPE|Error/);
    assert.equal(code, 0, stderr);
  });
});

for (const kind of ONE_DRIVER) {
  describe(`tidemark CLI: refusals and warnings [${kind}]`, () => {
    const db = cliDatabase(kind);
    let completed = '';
    let pending = '';
    after(() => db.dispose());

    before(async () => {
      await db.seed();
      assert.equal((await runCli(['migrate', ...db.args])).code, 0);
      [completed, pending] = await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'edges' });
        const done = await tm.addJob({ queue: 'edges', data: 1 });
        const waiting = await tm.addJob({ queue: 'edges', data: 2 });
        await rawQuery(
          tm,
          `update "${tm.schema}".jobs set status = 'completed', finished_at = now() where id = $1::bigint`,
          [done.id],
        );
        return [done.id, waiting.id];
      });
    });

    if (kind === 'pg') {
      test('a missing database on a live server is one line naming it, exit 1', async () => {
        const url = PG_URL.replace(/\/[^/?]*(\?.*)?$/, '/tidemark_no_such_database');
        const { code, io } = await runCli(['stats', '--database', url]);
        assert.equal(code, 1);
        assert.match(
          io.err(),
          /^tidemark stats: database "tidemark_no_such_database" does not exist at .*: create it, or name another in --database\n$/,
        );
      });
    }

    test('cancel of a finished job and retry of a pending one refuse with exit 1 and change nothing', async () => {
      const cancel = await runCli(['cancel', completed, ...db.args]);
      assert.equal(cancel.code, 1, cancel.io.out());
      assert.match(
        cancel.io.err(),
        new RegExp(`job ${completed} is completed; only a job that has not finished can be cancelled`),
      );
      assert.equal(cancel.io.out(), '');
      const retry = await runCli(['retry', pending, ...db.args]);
      assert.equal(retry.code, 1);
      assert.match(retry.io.err(), new RegExp(`job ${pending} is pending`));
      await withEngine(db.open, async (tm) => {
        assert.equal((await tm.getJob(completed))?.status, 'completed');
        assert.equal((await tm.getJob(pending))?.status, 'pending');
      });
    });

    test('read-only commands on a mistyped schema say there is no schema and create nothing', async () => {
      const typo = `${db.schema}_typo`;
      const args = db.args.map((arg) => (arg === db.schema ? typo : arg));
      const commands = [
        ['stats'],
        ['sweep', '--dry-run'],
        ['purge', '--older-than', '0', '--dry-run'],
        ['retention', 'status'],
        ['dashboard', '--read-only', '--port', '0'],
      ];
      for (const command of commands) {
        const { code, io } = await runCli([...command, ...args]);
        assert.equal(code, 1, `${command.join(' ')}: ${io.out()}`);
        assert.match(io.err(), new RegExp(`no Tidemark schema '${typo}' here`), command.join(' '));
      }
      await withEngine(db.open, async (tm) => {
        const found = await rawQuery(tm, 'select nspname from pg_namespace where nspname = $1', [typo]);
        assert.deepEqual(found, []);
      });
    });

    test('a --queue that names no queue warns and lists the known ones', async () => {
      const io = captureIo();
      const { code } = await runCli(
        ['purge', '--older-than', '0', '--queue', 'edgs', '--dry-run', ...db.args],
        io,
      );
      assert.equal(code, 0);
      assert.match(io.err(), /warning: no queue named 'edgs' in schema .* \(known: edges\)/);
      // Commands that act on one queue refuse an unknown one outright.
      const hold = await runCli(['retention', 'hold', '--queue', 'edgs', '--reason', 'audit', ...db.args]);
      assert.equal(hold.code, 1);
      assert.match(hold.io.err(), /queue 'edgs'/);
      const known = await runCli(['purge', '--older-than', '0', '--queue', 'edges', '--dry-run', ...db.args]);
      assert.equal(known.io.err(), '');
    });
  });
}
