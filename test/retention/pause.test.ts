import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, RetentionPausedError, silentLogger } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { existingJobs, insertJob, jobExists } from '../support/factory.js';
import { deferred } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

describeEachDriver('retention pause switch', ({ kind, open }) => {
  test('pauseRetention stores the switch; retentionStatus reads it back; resume clears it', async () => {
    const tm = await open({ logger: silentLogger });
    assert.deepEqual(await tm.retentionStatus(), {
      paused: false,
      reason: null,
      since: null,
      pausedBy: null,
      holds: 0,
    });
    const before = Date.now();
    const status = await tm.pauseRetention({ reason: 'incident 42' });
    assert.equal(status.paused, true);
    assert.equal(status.reason, 'incident 42');
    assert.ok(status.since instanceof Date && status.since.getTime() >= before - 5_000);
    assert.match(String(status.pausedBy), /:\d+$/, 'host:pid of the process that paused');
    const again = await tm.pauseRetention({ reason: 'still the incident' });
    assert.equal(again.reason, 'still the incident');
    assert.equal(again.since?.getTime(), status.since?.getTime(), 'a second pause keeps the first time');
    const resumed = await tm.resumeRetention();
    assert.deepEqual(
      { paused: resumed.paused, reason: resumed.reason, since: resumed.since },
      { paused: false, reason: null, since: null },
    );
  });

  test('while paused no sweep deletes anything, on any engine; resuming lets the next one delete', async () => {
    const tm = await open({ logger: silentLogger });
    const other = await open({ logger: silentLogger, schema: tm.schema });
    const due = await insertJob(tm, {
      status: 'completed',
      purgeAfter: -60,
      signals: [{ consumedAt: -120, purgeAfter: -60 }],
    });
    const withSignal = await insertJob(tm, {
      status: 'waiting',
      signals: [{ consumedAt: -120, purgeAfter: -60 }],
    });
    await rawQuery(
      tm,
      `insert into "${tm.schema}".unique_locks (scope, job_id, expires_at) values ('old', $1::bigint, now() - interval '1 minute')`,
      [withSignal],
    );
    await tm.pauseRetention({ reason: 'audit' });

    const swept = await other.sweep();
    assert.deepEqual(
      { jobs: swept.jobs, signals: swept.signals, uniqueLocks: swept.uniqueLocks, paused: swept.paused },
      { jobs: 0, signals: 0, uniqueLocks: 0, paused: true },
    );
    const preview = await other.sweep({ dryRun: true });
    assert.equal(preview.jobs, 1, 'a dry run still says what would go once resumed');
    assert.equal(preview.paused, true);

    const worker = other.worker({ sweep: { intervalSeconds: 3_600 } });
    await worker.start();
    await worker.service('retention')?.runNow();
    await worker.service('unique-locks')?.runNow();
    await worker.stop();
    assert.equal(await jobExists(tm, due), true);
    const [counts] = await rawQuery<{ signals: number; locks: number }>(
      tm,
      `select (select count(*) from "${tm.schema}".signals)::int as signals,
              (select count(*) from "${tm.schema}".unique_locks)::int as locks`,
    );
    assert.deepEqual(counts, { signals: 2, locks: 1 }, 'consumed signals and expired locks stay too');
    const [history] = await other.listSweeps(1);
    assert.equal(history.paused, true, 'the history says the pass was paused');

    await tm.resumeRetention();
    const after = await other.sweep();
    assert.equal(after.jobs, 1);
    assert.equal(after.paused, undefined);
    assert.equal(await jobExists(tm, due), false);
  });

  test('while paused removeJobs refuses with RetentionPausedError and deletes nothing; a dry run counts', async () => {
    const tm = await open({ logger: silentLogger });
    await insertJob(tm, { status: 'completed', finishedAt: -3_600 });
    await insertJob(tm, { status: 'failed', finishedAt: -3_600 });
    await tm.pauseRetention({ reason: 'legal review' });
    await assert.rejects(tm.removeJobs(), (error: unknown) => {
      assert.ok(error instanceof RetentionPausedError);
      assert.equal(error.code, 'RETENTION_PAUSED');
      assert.equal(error.reason, 'legal review');
      assert.match(error.message, /legal review/);
      return true;
    });
    assert.equal(await tm.removeJobs({ dryRun: true }), 2);
    assert.equal((await existingJobs(tm)).length, 2);
    await tm.resumeRetention();
    assert.equal(await tm.removeJobs(), 2);
  });

  test('an explicit deleteJob still works while paused', async () => {
    const tm = await open({ logger: silentLogger });
    const id = await insertJob(tm, { status: 'completed' });
    await tm.pauseRetention({ reason: 'freeze' });
    await tm.deleteJob(id);
    assert.equal(await jobExists(tm, id), false);
  });

  test('a pause waits for a batch in progress, which commits; nothing is deleted after it resolves', async () => {
    const entered = deferred();
    const released = deferred();
    let batches = 0;
    const tm = await open({
      logger: silentLogger,
      archive: async () => {
        batches++;
        entered.resolve();
        await released.promise;
      },
    });
    const other = await open({ logger: silentLogger, schema: tm.schema });
    // Batches of 2 over 11 jobs: the pass has batches left to start when the pause lands.
    const due = 11;
    for (let i = 0; i < due; i++) await insertJob(tm, { status: 'completed', purgeAfter: -60 - i });
    const sweeping = tm.sweep({ batchSize: 2 });
    await entered.promise;
    let pausedAt = 0;
    const pausing = tm.pauseRetention({ reason: 'mid-sweep' }).then((status) => {
      pausedAt = Date.now();
      return status;
    });
    if (kind === 'pg') {
      // Release the batch only once the pause is blocked on its lock.
      await waitFor('the pause to wait for the batch', async () => {
        const rows = await rawQuery(
          other,
          `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%retention_control%'
              and query like '%paused_by%'`,
        );
        return rows.length > 0 ? true : null;
      });
    } else {
      // One session: the pause is queued behind the batch's transaction as soon as it is called.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(pausedAt, 0, 'the pause waits for the batch holding the gate');
    released.resolve();
    const status = await pausing;
    assert.equal(status.paused, true);
    // The batch holding the gate commits. Later ones may still take the gate before the
    // waiting pause does (PostgreSQL grants a share lock on a row that is free at that instant
    // to whoever asks first), and then they commit whole too; what the pause promises is that
    // no batch starts after it resolves.
    const left = (await existingJobs(tm)).length;
    assert.ok(
      left > 0 && left < due && (due - left) % 2 === 0,
      `whole batches of 2 committed before the pause (${left} left)`,
    );
    const result = await sweeping;
    assert.equal(result.jobs, due - left);
    assert.equal(result.paused, true, 'the pass stopped at the pause');
    assert.equal(batches, (due - left) / 2, 'no batch started after the pause');
    assert.equal((await existingJobs(tm)).length, left, 'nothing deleted after the pause resolved');
  });

  test('bad input: a reason is required; nothing is written', async () => {
    const tm = await open({ logger: silentLogger });
    for (const options of [undefined, {}, { reason: '' }, { reason: 7 }, { reason: 'x', why: 'y' }]) {
      await assert.rejects(tm.pauseRetention(options as never), InvalidOptionError);
    }
    assert.equal((await tm.retentionStatus()).paused, false);
  });
});
