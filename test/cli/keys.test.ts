import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { captureIo, cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER } from '../support/databases.js';

for (const kind of ONE_DRIVER) {
  describe(`tidemark keys [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());
    before(async () => {
      await db.seed();
      await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'sync', keys: { concurrency: { default: 2, tiers: { pro: 5 } } } });
        await tm.addJobs([
          { queue: 'sync', key: 'tenant:a' },
          { queue: 'sync', key: 'tenant:a' },
          { queue: 'sync', key: 'tenant:b', tier: 'pro' },
        ]);
      });
    });

    test('lists the keys with their counts and limits; --json is parseable', async () => {
      const { code, io } = await runCli(['keys', 'sync', ...db.args]);
      assert.equal(code, 0, io.err());
      assert.match(io.out(), /key\s+tier\s+running\s+pending\s+limit\s+paused\s+oldest pending/);
      assert.match(io.out(), /^tenant:a\s+0\s+2\s+2\s/m);
      assert.match(io.out(), /^tenant:b\s+pro\s+0\s+1\s+5\s/m);
      assert.doesNotMatch(io.out(), /Next page/, 'a page that is not full has no next one');
      const paged = await runCli(['keys', 'sync', '--limit', '1', ...db.args]);
      assert.match(paged.io.out(), /Next page: --after "tenant:a"/);
      const json = await runCli(['keys', 'sync', '--json', ...db.args]);
      const parsed = JSON.parse(json.io.out()) as { keys: { key: string; pending: number }[] };
      assert.deepEqual(
        parsed.keys.map((k) => [k.key, k.pending]),
        [
          ['tenant:a', 2],
          ['tenant:b', 1],
        ],
      );
    });

    test('pauses, resumes and sets limits; --blocked and --after page the list', async () => {
      assert.equal((await runCli(['keys', 'sync', '--pause', 'tenant:a', ...db.args])).code, 0);
      assert.equal((await runCli(['keys', 'sync', '--set-limit', 'tenant:b=7', ...db.args])).code, 0);
      const blocked = await runCli(['keys', 'sync', '--blocked', '--json', ...db.args]);
      assert.deepEqual(
        (JSON.parse(blocked.io.out()) as { keys: { key: string; paused: boolean }[] }).keys.map((k) => [
          k.key,
          k.paused,
        ]),
        [['tenant:a', true]],
      );
      const page = await runCli(['keys', 'sync', '--after', 'tenant:a', '--json', ...db.args]);
      assert.deepEqual(
        (JSON.parse(page.io.out()) as { keys: { key: string; limit: number }[] }).keys.map((k) => [
          k.key,
          k.limit,
        ]),
        [['tenant:b', 7]],
      );
      assert.equal((await runCli(['keys', 'sync', '--resume', 'tenant:a', ...db.args])).code, 0);
      assert.equal((await runCli(['keys', 'sync', '--clear-limit', 'tenant:b', ...db.args])).code, 0);
      const listed = await runCli(['keys', 'sync', '--json', ...db.args]);
      assert.deepEqual(
        (JSON.parse(listed.io.out()) as { keys: { key: string; limit: number; paused: boolean }[] }).keys.map(
          (k) => [k.key, k.limit, k.paused],
        ),
        [
          ['tenant:a', 2, false],
          ['tenant:b', 5, false],
        ],
      );
    });

    test('bad input: no queue, two actions, a bad limit, an unknown queue', async () => {
      assert.equal((await runCli(['keys', ...db.args])).code, 2);
      assert.equal((await runCli(['keys', 'sync', '--pause', 'a', '--resume', 'a', ...db.args])).code, 2);
      assert.equal((await runCli(['keys', 'sync', '--set-limit', 'tenant:a', ...db.args])).code, 2);
      const zero = await runCli(['keys', 'sync', '--set-limit', 'tenant:a=0', ...db.args], captureIo());
      assert.notEqual(zero.code, 0);
      assert.match(zero.io.err(), /limit\.concurrency/);
      const unknown = await runCli(['keys', 'nope', ...db.args]);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.io.err(), /nope/);
    });
  });
}
