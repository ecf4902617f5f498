import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { cliDatabase, runCli, withEngine } from '../support/cli.js';
import { controlState } from '../support/control-state.js';
import { ONE_DRIVER } from '../support/databases.js';

// The command is a thin layer over the API, which its own tests run on both drivers.
for (const kind of ONE_DRIVER) {
  describe(`tidemark retention [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());
    before(async () => {
      await db.seed();
      assert.equal((await runCli(['migrate', ...db.args])).code, 0);
    });

    test('pause, status, a refused purge, a sweep that deletes nothing, resume', async () => {
      const ids = await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'cli.q', retention: { ttlSeconds: 60 } });
        const added = await tm.addJobs([1, 2].map((i) => ({ queue: 'cli.q', data: { i } })));
        for (const job of added) await tm.cancelJob(job.id);
        await runnerOf(engineOf(tm).storage).driver.query(
          `update "${tm.schema}".jobs set finished_at = now() - interval '2 minutes', purge_after = now() - interval '1 minute'`,
        );
        return added.map((a) => a.id);
      });
      const noReason = await runCli(['retention', 'pause', ...db.args]);
      assert.equal(noReason.code, 2);
      assert.match(noReason.io.err(), /--reason TEXT is required/);
      const pause = await runCli(['retention', 'pause', '--reason', 'audit week', ...db.args]);
      assert.equal(pause.code, 0, pause.io.err());
      assert.match(pause.io.out(), /^Retention paused cluster-wide since \S+: audit week$/m);
      const status = await runCli(['retention', 'status', ...db.args]);
      assert.match(status.io.out(), /^Retention is PAUSED cluster-wide since \S+ by \S+: audit week$/m);
      assert.match(status.io.out(), /^No holds\.$/m);
      const purge = await runCli(['purge', '--older-than', '0', ...db.args]);
      assert.equal(purge.code, 1);
      assert.match(purge.io.err(), /tidemark purge: retention is paused \(audit week\)/);
      const dry = await runCli(['purge', '--older-than', '0', '--dry-run', ...db.args]);
      assert.match(dry.io.out(), /Dry run: 2 .* would be deleted[\s\S]*the purge itself would be refused/);
      const sweep = await runCli(['sweep', ...db.args]);
      assert.equal(sweep.code, 0, sweep.io.err());
      assert.match(
        sweep.io.out(),
        /^Deleted 0 jobs[\s\S]*Retention is paused cluster-wide: nothing was deleted/,
      );
      const resume = await runCli(['retention', 'resume', ...db.args]);
      assert.equal(resume.io.out(), 'Retention resumed.\n');
      const swept = await runCli(['sweep', '--batch-size', '50000', ...db.args]);
      assert.match(swept.io.out(), /^Deleted 2 jobs/);
      assert.match(swept.io.err(), /WARN tidemark: batchSize 50000 is above 10000; clamped to 10000/);
      await withEngine(db.open, async (tm) => assert.equal(await tm.getJob(ids[0]), null));
      const bad = await runCli(['sweep', '--batch-size', '0', ...db.args]);
      assert.equal(bad.code, 2);
      assert.match(
        bad.io.err(),
        /--batch-size must be a whole number from 1 to 10000 \(larger values are clamped\)/,
      );
    });

    test('hold and release; apply a policy to history with a dry run first', async () => {
      const id = await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'cli.held' });
        const { id } = await tm.addJob({ queue: 'cli.held' });
        await tm.cancelJob(id);
        return id;
      });
      const hold = await runCli([
        'retention',
        'hold',
        '--queue',
        'cli.held',
        '--reason',
        'incident',
        ...db.args,
      ]);
      assert.equal(hold.code, 0, hold.io.err());
      const holdId = hold.io.out().match(/^Hold (\d+) keeps 1 jobs/)?.[1];
      assert.ok(holdId, hold.io.out());
      assert.match(
        (await runCli(['retention', 'status', ...db.args])).io.out(),
        /incident\s+queue cli\.held\s+1/,
      );
      const missing = await runCli(['retention', 'hold', '--ids', '987654', '--reason', 'x', ...db.args]);
      assert.equal(missing.code, 1);
      assert.match(missing.io.err(), /job 987654 not found/);
      const released = await runCli(['retention', 'release', holdId, ...db.args]);
      assert.equal(released.io.out(), `Hold ${holdId} released.\n`);
      const again = await runCli(['retention', 'release', holdId, ...db.args]);
      assert.equal(again.code, 1);
      assert.match(again.io.err(), /retention hold \d+ not found/);

      const policy = '{"cancelled":120}';
      const dry = await runCli([
        'retention',
        'apply',
        '--queue',
        'cli.held',
        '--policy',
        policy,
        '--dry-run',
        ...db.args,
      ]);
      assert.equal(dry.code, 0, dry.io.err());
      assert.match(
        dry.io.out(),
        /^Dry run: 1 jobs of queue cli\.held would be re-frozen with \{"cancelled":120\}/,
      );
      const wet = await runCli(['retention', 'apply', '--queue', 'cli.held', '--policy', policy, ...db.args]);
      assert.match(wet.io.out(), /^Re-froze 1 jobs of queue cli\.held/);
      await withEngine(db.open, async (tm) =>
        assert.deepEqual((await tm.getJob(id))?.retention, { cancelled: 120 }),
      );
      const keep = await runCli(['retention', 'apply', '--queue', 'cli.held', '--keep', ...db.args]);
      assert.match(keep.io.out(), /^Re-froze 1 jobs of queue cli\.held with \{\}/);
      const badPolicy = await runCli([
        'retention',
        'apply',
        '--queue',
        'cli.held',
        '--policy',
        '{',
        ...db.args,
      ]);
      assert.equal(badPolicy.code, 2);
      const unknown = await runCli(['retention', 'frobnicate', ...db.args]);
      assert.equal(unknown.code, 2);
      assert.match(
        unknown.io.err(),
        /unknown action 'frobnicate' \(status, pause, resume, hold, release, apply\)/,
      );
    });

    test('every refused retention command writes nothing, not even the gate version', async () => {
      const id = await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'cli.refused' });
        const { id } = await tm.addJob({ queue: 'cli.refused' });
        await tm.cancelJob(id);
        await tm.holdJobs({ queue: 'cli.refused', reason: 'standing' });
        return id;
      });
      const state = () => withEngine(db.open, controlState);
      const before = await state();
      const refusals: [string[], number][] = [
        [['hold', '--ids', `${id},987654`, '--reason', 'x'], 1],
        [['hold', '--ids', '987654', '--queue', 'cli.refused', '--reason', 'x'], 1],
        [['hold', '--queue', 'no.such.queue', '--reason', 'x'], 1],
        [['hold', '--ids', 'abc', '--reason', 'x'], 1],
        [['hold', '--ids', String(id)], 2],
        [['release', '987654'], 1],
        [['release', 'abc'], 1],
        [['pause'], 2],
        [['pause', '--reason', 'x'.repeat(501)], 1],
        [['apply', '--queue', 'no.such.queue'], 1],
        [['apply', '--queue', 'cli.refused', '--policy', '{"completed":-1}'], 1],
        [['apply', '--queue', 'cli.refused', '--policy', '{'], 2],
        [['apply', '--queue', 'cli.refused', '--policy', '{}', '--keep'], 2],
        [['apply', '--queue', 'cli.refused', '--batch-size', '0'], 2],
      ];
      for (const [args, code] of refusals) {
        const run = await runCli(['retention', ...args, ...db.args]);
        assert.equal(run.code, code, `${args.join(' ')}: ${run.io.err()}`);
        assert.deepEqual(await state(), before, `${args.join(' ')} wrote`);
      }
      const resume = await runCli(['retention', 'resume', ...db.args]);
      assert.equal(resume.io.out(), 'Retention was not paused.\n');
      assert.deepEqual(await state(), before, 'a resume of a running retention raised the gate version');
    });
  });
}
