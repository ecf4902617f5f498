import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER } from '../support/databases.js';

for (const kind of ONE_DRIVER) {
  describe(`tidemark limiters [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());
    before(async () => {
      await db.seed();
      await withEngine(db.open, async (tm) => {
        await tm.defineLimiter('partner', { limit: 600, periodSeconds: 60, burst: 20 });
        await tm.defineLimiter('nightly', { limit: 1, periodSeconds: 86_400 });
      });
    });

    test('lists the limiters; --json is parseable', async () => {
      const { code, io } = await runCli(['limiters', ...db.args]);
      assert.equal(code, 0, io.err());
      assert.match(
        io.out(),
        /limiter\s+limit\s+period \(s\)\s+burst\s+token every \(s\)\s+busy buckets\s+jobs held/,
      );
      assert.match(io.out(), /^nightly\s+1\s+86400\s+0\s+86486\.4\s+0\s+0/m);
      assert.match(io.out(), /^partner\s+600\s+60\s+20\s+0\.1001\s+0\s+0/m);
      const json = await runCli(['limiters', '--json', ...db.args]);
      const parsed = JSON.parse(json.io.out()) as { limiters: { name: string; limit: number }[] };
      assert.deepEqual(
        parsed.limiters.map((l) => [l.name, l.limit]),
        [
          ['nightly', 1],
          ['partner', 600],
        ],
      );
    });

    test('shows one bucket; an unknown limiter is refused with its code', async () => {
      const { code, io } = await runCli(['limiters', 'partner', '--key', 'acct:1', ...db.args]);
      assert.equal(code, 0, io.err());
      assert.match(io.out(), /^partner \[acct:1\]\s+21\s+21\s+full\s+now\s+0/m);
      const missing = await runCli(['limiters', 'nope', ...db.args]);
      assert.notEqual(missing.code, 0);
      assert.match(missing.io.err(), /LIMITER_NOT_FOUND|limiter 'nope' does not exist/);
    });
  });
}
