import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { commands } from '../../src/cli/main.js';
import { captureIo, runCli } from '../support/cli.js';

describe('tidemark CLI: help and bad input', () => {
  test('--help lists every command and exits 0', async () => {
    const { code, io } = await runCli(['--help']);
    assert.equal(code, 0);
    for (const name of [
      'demo',
      'dashboard',
      'migrate',
      'stats',
      'workers',
      'purge',
      'sweep',
      'retry',
      'cancel',
      'run-now',
    ]) {
      assert.match(io.out(), new RegExp(`^  ${name} `, 'm'), `${name} listed`);
    }
    assert.match(io.out(), /--schema NAME/);
  });

  test('no command prints help and exits 2; an unknown one names it and exits 2', async () => {
    const bare = await runCli([]);
    assert.equal(bare.code, 2);
    assert.match(bare.io.out(), /Usage: tidemark <command>/);
    const unknown = await runCli(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.io.err(), /unknown command 'frobnicate'/);
  });

  test('every command has --help with its usage and the database options', async () => {
    for (const command of commands) {
      const { code, io } = await runCli([command.name, '--help']);
      assert.equal(code, 0, command.name);
      assert.match(io.out(), new RegExp(`^Usage: tidemark ${command.name}`), command.name);
      assert.match(io.out(), /--database URL\|PATH/, `${command.name} documents --database`);
      assert.match(io.out(), /--schema NAME/, `${command.name} documents --schema`);
    }
  });

  test('bad input exits 2 with a clear message, before opening anything', async () => {
    const cases: [string[], RegExp][] = [
      [['purge', '--status', 'failed'], /--older-than SECONDS is required/],
      [['purge', '--older-than', 'soon'], /--older-than must be a number of seconds/],
      [['purge', '--older-than=-5'], /--older-than must be a number of seconds/],
      [['purge', '--older-than', '0', '--status', 'pending'], /'pending' is not a finished status/],
      [['purge', '--older-than', '0', '--batch-size', '0'], /--batch-size must be a whole number/],
      [['retry', 'abc'], /'abc' is not a job id/],
      [['cancel', '9999999999999999999'], /'9999999999999999999' is not a job id/],
      [['cancel'], /expected one job id/],
      [['retry', '1', '2'], /expected one job id/],
      [['stats', '--colour'], /Unknown option '--colour'/],
      [['dashboard', '--port', 'eighty'], /--port must be a whole number/],
      // Number() takes each of these: a blank as port 0 (any free port), hex, an exponent.
      [['dashboard', '--port', ''], /--port must be a whole number from 0 to 65535, got ''/],
      [['dashboard', '--port', '0x50'], /--port must be a whole number from 0 to 65535/],
      [['serve', '--api', '--port', '8e3'], /--port must be a whole number from 0 to 65535/],
      [['serve', '--api', '--port', '70000'], /--port must be a whole number from 0 to 65535/],
      [['demo', '--jobs', '0'], /--jobs must be a whole number/],
      [['demo', '--jobs', ' 12 '], /--jobs must be a whole number from 1 to 1000000/],
      [['schedules', '--fires', '1.5'], /--fires must be a whole number from 0 to 100/],
      [['stats', '--database', '/nonexistent/tidemark-folder'], /no embedded database at/],
    ];
    for (const [args, message] of cases) {
      const io = captureIo();
      const { code } = await runCli(args, io);
      assert.equal(code, 2, `${args.join(' ')} → exit 2 (stderr: ${io.err()})`);
      assert.match(io.err(), message, args.join(' '));
    }
  });
});
