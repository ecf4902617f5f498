import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { tickInputs, tickOnce } from '../../src/maintenance/tick/tick.js';
import { cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER, rawQuery } from '../support/databases.js';
import { finishedJobs } from '../support/jobs.js';

for (const kind of ONE_DRIVER) {
  describe(`tidemark schedules, unschedule and bulk retry/cancel [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());
    before(async () => {
      await db.seed();
      const { code, io } = await runCli(['migrate', ...db.args]);
      assert.equal(code, 0, io.err());
    });

    test('schedules lists each schedule with its next fire and latest fires; unschedule removes it', async () => {
      const jobId = await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'reports' });
        await tm.schedule({ name: 'nightly', cron: '0 3 * * *', queue: 'reports' });
        await rawQuery(tm, `update "${tm.schema}".schedules set last_fire_at = now() - interval '2 days'`);
        await tickOnce(tickInputs(engineOf(tm)));
        const [fire] = await rawQuery<{ job_id: string }>(
          tm,
          `select job_id::text as job_id from "${tm.schema}".schedule_fires`,
        );
        return fire.job_id;
      });
      const list = await runCli(['schedules', ...db.args]);
      assert.equal(list.code, 0, list.io.err());
      assert.match(list.io.out(), /^name\s+cron\s+timezone\s+queue\s+next fire \(UTC\)\s+latest fires$/m);
      assert.match(
        list.io.out(),
        new RegExp(
          `^nightly\\s+0 3 \\* \\* \\*\\s+UTC\\s+reports\\s+\\d{4}-\\d\\d-\\d\\d 03:00:00\\s+job ${jobId} pending$`,
          'm',
        ),
      );
      const json = await runCli(['schedules', '--json', ...db.args]);
      const [schedule] = JSON.parse(json.io.out()).schedules;
      assert.equal(schedule.name, 'nightly');
      assert.deepEqual(
        schedule.fires.map((f: { jobId: string }) => f.jobId),
        [jobId],
      );

      const removed = await runCli(['unschedule', 'nightly', ...db.args]);
      assert.equal(removed.code, 0, removed.io.err());
      assert.equal(removed.io.out(), 'Removed schedule nightly.\n');
      const again = await runCli(['unschedule', 'nightly', ...db.args]);
      assert.equal(again.code, 1);
      assert.match(again.io.err(), /nightly/);
      assert.match((await runCli(['schedules', ...db.args])).io.out(), /^No schedules in schema/);
    });

    test('schedule pause, resume and trigger act through the API; a bad call exits 2, an unknown name 1', async () => {
      await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'digest.q' });
        await tm.schedule({ name: 'digest', cron: '0 * * * *', queue: 'digest.q' });
      });
      const paused = await runCli(['schedule', 'pause', 'digest', ...db.args]);
      assert.equal(paused.code, 0, paused.io.err());
      assert.equal(paused.io.out(), 'Paused schedule digest.\n');
      assert.match(
        (await runCli(['schedules', ...db.args])).io.out(),
        /^digest\s+.*\s+paused\s+not fired yet$/m,
      );
      const fired = await runCli(['schedule', 'trigger', 'digest', ...db.args]);
      assert.match(fired.io.out(), /^Fired schedule digest: job \d+\.\n$/);
      const resumed = await runCli(['schedule', 'resume', 'digest', ...db.args]);
      assert.match(resumed.io.out(), /^Resumed schedule digest/);
      await withEngine(db.open, async (tm) => {
        const [digest] = (await tm.listSchedules()).filter((s) => s.name === 'digest');
        assert.equal(digest.paused, false);
        assert.ok(digest.lastFireAt, 'the trigger counts as a fire');
        await tm.unschedule('digest');
      });
      assert.equal((await runCli(['schedule', 'stop', 'digest', ...db.args])).code, 2);
      assert.equal((await runCli(['schedule', 'pause', ...db.args])).code, 2);
      const unknown = await runCli(['schedule', 'pause', 'nope', ...db.args]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.io.err(), /nope/);
    });

    test('retry --status failed --dry-run counts; without it retries them all in batches', async () => {
      const ids = await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'bulk.q' });
        return finishedJobs(tm, 'bulk.q', 5);
      });
      const filter = ['--queue', 'bulk.q', '--status', 'failed'];
      const dry = await runCli(['retry', ...filter, '--dry-run', ...db.args]);
      assert.equal(dry.code, 0, dry.io.err());
      assert.equal(dry.io.out(), 'Dry run: 5 failed jobs of queue bulk.q match. Nothing was retried.\n');
      const run = await runCli(['retry', ...filter, '--batch-size', '2', ...db.args]);
      assert.equal(run.code, 0, run.io.err());
      assert.equal(run.io.out(), 'Retried 5 of 5 matching failed jobs of queue bulk.q.\n');
      const cancel = await runCli([
        'cancel',
        '--queue',
        'bulk.q',
        '--status',
        'pending',
        '--json',
        ...db.args,
      ]);
      assert.equal(cancel.code, 0, cancel.io.err());
      assert.deepEqual(
        (({ matched, done, refused }) => ({ matched, done, refused }))(JSON.parse(cancel.io.out())),
        { matched: 5, done: 5, refused: {} },
      );
      await withEngine(db.open, async (tm) => {
        for (const id of ids) assert.equal((await tm.getJob(id))?.status, 'cancelled');
      });
      const single = await runCli(['retry', ids[0], ...db.args]);
      assert.equal(single.io.out(), `Job ${ids[0]} (bulk.q): cancelled → pending\n`, 'retry ID still works');
    });

    test('bad bulk input exits 2 before opening anything', async () => {
      const cases: [string[], RegExp][] = [
        [['retry', '--queue', 'q'], /--status is required/],
        [['retry', '--status', 'pending'], /retry acts on completed, failed, cancelled, expired, retry/],
        [['cancel', '--status', 'failed'], /cancel acts on pending/],
        [['retry', '7', '--status', 'failed'], /a job id or filter options, not both/],
        [['retry', '--status', 'failed', '--since', 'soon'], /--since must be a number/],
      ];
      for (const [args, message] of cases) {
        const { code, io } = await runCli([...args, '--database', '/nonexistent/tidemark-folder']);
        assert.equal(code, 2, `${args.join(' ')}: ${io.err()}`);
        assert.match(io.err(), message);
      }
    });
  });
}
