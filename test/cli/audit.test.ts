import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER } from '../support/databases.js';

for (const kind of ONE_DRIVER) {
  describe(`tidemark audit and --actor [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());
    before(async () => {
      await db.seed();
      const { code, io } = await runCli(['migrate', ...db.args]);
      assert.equal(code, 0, io.err());
      await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'mail' });
        await tm.pauseKey('mail', 'k', { actor: 'api-user' });
      });
    });

    test('an action records --actor, or the OS user, from the CLI; audit lists and filters them', async () => {
      const paused = await runCli(['queue', 'pause', 'mail', '--actor', 'alice', ...db.args]);
      assert.equal(paused.code, 0, paused.io.err());
      const resumed = await runCli(['queue', 'resume', 'mail', ...db.args]);
      assert.equal(resumed.code, 0, resumed.io.err());
      const rows = await withEngine(db.open, (tm) => tm.listAudit());
      assert.deepEqual(
        rows.map((r) => [r.action, r.actor, r.source]),
        [
          ['resume-queue', userInfo().username, 'cli'],
          ['pause-queue', 'alice', 'cli'],
          ['pause-key', 'api-user', 'api'],
        ],
      );
      const listed = await runCli(['audit', ...db.args]);
      assert.equal(listed.code, 0, listed.io.err());
      assert.match(listed.io.out(), /^id\s+when\s+actor\s+from\s+action\s+target\s+rows$/m);
      assert.match(listed.io.out(), /\s+alice\s+cli\s+pause-queue\s+queue mail\s+1$/m);
      const lines = listed.io.out().trim().split('\n');
      assert.equal(lines.length, 1 + 1 + 3, 'a header, its rule, and three rows');
      const alice = await runCli(['audit', '--actor', 'alice', '--json', ...db.args]);
      assert.equal(alice.code, 0, alice.io.err());
      const doc = JSON.parse(alice.io.out()) as { actions: { action: string; actor: string }[] };
      assert.deepEqual(
        doc.actions.map((a) => [a.action, a.actor]),
        [['pause-queue', 'alice']],
      );
      const none = await runCli(['audit', '--until', '2000-01-01T00:00:00Z', ...db.args]);
      assert.equal(none.code, 0);
      assert.match(none.io.out(), /No recorded action matches/);
    });

    test('a bad range or date exits 1 naming the option, and writes nothing', async () => {
      const backwards = await runCli([
        'audit',
        '--since',
        '2026-02-02T00:00:00Z',
        '--until',
        '2026-02-01T00:00:00Z',
        ...db.args,
      ]);
      assert.equal(backwards.code, 1);
      assert.match(backwards.io.err(), /'since'/);
      const bad = await runCli(['audit', '--since', 'last tuesday', ...db.args]);
      assert.equal(bad.code, 1);
      assert.match(bad.io.err(), /'since'/);
      const badActor = await runCli(['queue', 'pause', 'mail', '--actor', 'x'.repeat(201), ...db.args]);
      assert.equal(badActor.code, 1);
      assert.match(badActor.io.err(), /'options\.actor'/);
      const rows = await withEngine(db.open, (tm) => tm.listAudit({ action: 'pause-queue' }));
      assert.equal(rows.length, 1, 'the refused pause wrote no row');
    });
  });
}
