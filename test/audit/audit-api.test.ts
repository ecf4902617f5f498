import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidJobStateError, InvalidOptionError, JobInFlightError } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';
import { countRows } from '../support/jobs.js';

describeEachDriver('the audit of operator actions', ({ open, openOnClock }) => {
  test('each action is recorded with who, where, what and how many, newest first', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const failed = await insertJob(tm, { queue: 'q', status: 'failed' });
    const { id: pending } = await tm.addJob({ queue: 'q', data: {}, delaySeconds: 3600 });
    await tm.retryJob(failed, { actor: 'alice' });
    await tm.cancelJob(failed, { actor: 'bob', source: 'cli' });
    await tm.runNow(pending);
    await tm.pauseQueue('q', { actor: 'ops-bot', source: 'dashboard' });
    await tm.deleteJob(failed);
    const rows = await tm.listAudit();
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.source, r.target, r.rows]),
      [
        ['delete', 'api', 'api', { jobId: failed }, 1],
        ['pause-queue', 'ops-bot', 'dashboard', { queue: 'q' }, 1],
        ['run-now', 'api', 'api', { jobId: pending }, 1],
        ['cancel', 'bob', 'cli', { jobId: failed }, 1],
        ['retry', 'alice', 'api', { jobId: failed }, 1],
      ],
    );
    assert.ok(rows.every((r) => r.at instanceof Date));
  });

  test('rows counts what changed: a pause of a paused job, a cancel of a finished one, count 0', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {}, delaySeconds: 60 });
    const done = await insertJob(tm, { queue: 'q', status: 'completed' });
    await tm.pauseJob(id);
    await tm.pauseJob(id);
    await tm.cancelJob(done);
    assert.deepEqual(
      (await tm.listAudit()).map((r) => [r.action, r.rows]),
      [
        ['cancel', 0],
        ['pause', 0],
        ['pause', 1],
      ],
    );
  });

  test('a refused action writes no audit row, and neither does a bad actor', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    const running = await insertJob(tm, { queue: 'q', status: 'active' });
    await assert.rejects(tm.retryJob(id), InvalidJobStateError);
    await assert.rejects(tm.deleteJob(running), JobInFlightError);
    await assert.rejects(tm.cancelJob(id, { actor: '' }), (error: unknown) => {
      assert.ok(error instanceof InvalidOptionError);
      assert.equal(error.field, 'options.actor');
      return true;
    });
    assert.equal((await tm.getJob(id))?.status, 'pending');
    assert.equal(await countRows(tm, 'audit_log'), 0);
  });

  test('a bulk action is one row with its filter and the jobs it changed; a dry run none', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    for (let i = 0; i < 3; i++) await insertJob(tm, { queue: 'q', status: 'failed' });
    const counted = await tm.retryJobs({ queue: 'q', status: 'failed' }, { dryRun: true, actor: 'alice' });
    assert.equal(counted.matched, 3);
    assert.equal(await countRows(tm, 'audit_log'), 0);
    const done = await tm.retryJobs({ queue: 'q', status: 'failed' }, { actor: 'alice' });
    const [row] = await tm.listAudit();
    assert.equal(row.action, 'bulk-retry');
    assert.equal(row.actor, 'alice');
    assert.equal(row.rows, 3);
    assert.deepEqual(row.target.filter, { queue: 'q', status: 'failed', throughId: done.throughId });
  });

  test('retention, schedule and key controls are recorded; a dry-run purge is not', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const old = await insertJob(tm, { queue: 'q', status: 'completed', finishedAt: -7200 });
    await tm.schedule({ name: 'nightly', cron: '0 3 * * *', queue: 'q', data: {} });
    assert.equal(await tm.removeJobs({ queue: 'q', olderThanSeconds: 3600, dryRun: true }), 1);
    await tm.pauseSchedule('nightly', { actor: 'alice' });
    await tm.pauseKey('q', 'tenant-1');
    const hold = await tm.holdJobs({ ids: [old], reason: 'incident 7', actor: 'carol' });
    await tm.releaseHold(hold.holdId);
    assert.equal(await tm.removeJobs({ queue: 'q', olderThanSeconds: 3600, actor: 'dave' }), 1);
    const rows = await tm.listAudit();
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor, r.rows]),
      [
        ['purge', 'dave', 1],
        ['release-hold', 'api', 1],
        ['hold', 'carol', 1],
        ['pause-key', 'api', 1],
        ['pause-schedule', 'alice', 1],
      ],
    );
    assert.deepEqual(rows[2].target, {
      holdId: hold.holdId,
      detail: 'incident 7',
      filter: { ids: [old] },
    });
    assert.deepEqual(rows[0].target.filter, { queue: 'q', olderThanSeconds: 3600 });
  });

  test('listAudit filters by action, actor and time, pages by keyset, and refuses a bad range', async () => {
    const tm = await openOnClock();
    tm.createQueue({ name: 'q' });
    const start = new Date(tm.clock.now());
    for (const actor of ['alice', 'bob', 'alice']) {
      await tm.pauseQueue('q', { actor });
      await tm.clock.advance(60);
    }
    await tm.resumeQueue('q', { actor: 'bob' });
    assert.deepEqual(
      (await tm.listAudit({ actor: 'alice' })).map((r) => r.action),
      ['pause-queue', 'pause-queue'],
    );
    assert.deepEqual(
      (await tm.listAudit({ action: 'resume-queue' })).map((r) => r.actor),
      ['bob'],
    );
    const middle = await tm.listAudit({
      since: new Date(start.getTime() + 30_000),
      until: new Date(start.getTime() + 150_000).toISOString(),
    });
    assert.deepEqual(
      middle.map((r) => r.actor),
      ['alice', 'bob'],
    );
    const first = await tm.listAudit({ limit: 3 });
    const second = await tm.listAudit({ limit: 3, after: first[2].id });
    assert.deepEqual(
      [...first, ...second].map((r) => r.actor),
      ['bob', 'alice', 'bob', 'alice'],
    );
    const refused = (field: string) => (error: unknown) => {
      assert.ok(error instanceof InvalidOptionError);
      assert.equal(error.field, field);
      return true;
    };
    await assert.rejects(
      tm.listAudit({ since: new Date(2026, 1, 2), until: new Date(2026, 1, 1) }),
      refused('since'),
    );
    await assert.rejects(tm.listAudit({ until: 'yesterday' }), refused('until'));
    await assert.rejects(tm.listAudit({ action: 'explode' as never }), refused('action'));
    await assert.rejects(tm.listAudit({ limit: 0 }), refused('limit'));
  });

  test('audit rows past their window go in the retention pass; newer ones stay', async () => {
    const tm = await openOnClock({ audit: { retainDays: 1 } });
    tm.createQueue({ name: 'q' });
    await tm.pauseQueue('q', { actor: 'old' });
    await tm.clock.advance(86_400 + 60);
    await tm.resumeQueue('q', { actor: 'new' });
    const swept = await tm.sweep();
    assert.equal(swept.auditRows, 1);
    assert.deepEqual(
      (await tm.listAudit()).map((r) => r.actor),
      ['new'],
    );
    const again = await tm.sweep();
    assert.equal(again.auditRows, undefined);
  });

  test('a paused retention keeps audit rows past their window', async () => {
    const tm = await openOnClock({ audit: { retainDays: 1 } });
    tm.createQueue({ name: 'q' });
    await tm.pauseQueue('q');
    await tm.pauseRetention({ reason: 'investigation' });
    await tm.clock.advance(3 * 86_400);
    const swept = await tm.sweep();
    assert.equal(swept.paused, true);
    assert.equal(await countRows(tm, 'audit_log', "action = 'pause-queue'"), 1);
  });

  test('audit.retainDays is checked when opening', async () => {
    await assert.rejects(open({ audit: { retainDays: 0 } }), (error: unknown) => {
      assert.ok(error instanceof InvalidOptionError);
      assert.equal(error.field, 'audit.retainDays');
      return true;
    });
  });
});
