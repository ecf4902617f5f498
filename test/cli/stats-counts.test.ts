import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER } from '../support/databases.js';
import { analyzeJobs, seedCountCells } from '../support/seed-counts.js';

for (const kind of ONE_DRIVER) {
  describe(`tidemark stats counts [${kind}]`, () => {
    const db = cliDatabase(kind);
    before(() => db.seed());
    after(() => db.dispose());

    const stats = async (...flags: string[]) => {
      const { code, io } = await runCli(['stats', ...flags, ...db.args]);
      assert.equal(code, 0, io.err());
      return io.out();
    };

    test('the same cells as the queues page: exact to 10,000, then 10,000+ or ≈, before and after ANALYZE', async () => {
      await withEngine(db.open, seedCountCells);
      const beforeAnalyze = await stats();
      assert.match(beforeAnalyze, /^small\s+2,400\s+0\s+0\s+-\s*$/m, beforeAnalyze);
      assert.match(beforeAnalyze, /^big\s+10,000\+\s+0\s+0\s+-\s*$/m, beforeAnalyze);
      const json = JSON.parse(await stats('--json'));
      const counts = (name: string) => json.queues.find((q: { name: string }) => q.name === name).counts;
      assert.deepEqual(counts('small'), { completed: { n: 2400, exact: true, kind: 'exact' } });
      assert.deepEqual(counts('big'), { completed: { n: 10000, exact: false, kind: 'atLeast' } });

      await withEngine(db.open, analyzeJobs);
      const afterAnalyze = await stats();
      assert.match(afterAnalyze, /^small\s+2,400\s+0\s+0\s+-\s*$/m, afterAnalyze);
      assert.match(afterAnalyze, /^big\s+≈25k\s+0\s+0\s+-\s*$/m, afterAnalyze);
      const exact = JSON.parse(await stats('--json', '--exact'));
      const big = exact.queues.find((q: { name: string }) => q.name === 'big').counts;
      assert.deepEqual(big, { completed: { n: 25000, exact: true, kind: 'exact' } });
    });
  });
}
