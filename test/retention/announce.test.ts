import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JobStatus, messages, RetentionUnsupportedError } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob, jobExists } from '../support/factory.js';
import { captureLogger } from './support/capture-logger.js';

/** The retention lines a worker logged at startup (enabled, disabled, unsupported). */
const STARTUP = [
  messages.retentionEnabled,
  messages.retentionDisabled,
  messages.retentionUnsupported,
  messages.retentionKeptByDefault,
  messages.retentionPaused,
];

describeEachDriver('retention startup line', ({ open }) => {
  test('a default worker logs one info line with the effective windows, interval, batch size and how to disable', async () => {
    const { logger, records } = captureLogger();
    const tm = await open({ logger });
    const worker = tm.worker();
    await worker.start();
    await worker.stop();
    await worker.start();
    await worker.start();
    await worker.stop();
    const lines = records.filter((r) => STARTUP.includes(r.message as never));
    assert.equal(lines.length, 1, 'once per worker, across repeated start() calls');
    const [line] = lines;
    assert.equal(line.level, 'info');
    assert.equal(line.message, 'retention sweep enabled');
    assert.deepEqual(
      { ...line.fields, worker: undefined },
      {
        worker: undefined,
        completedAfterSeconds: 2_592_000,
        failedAfterSeconds: 7_776_000,
        cancelledAfterSeconds: 7_776_000,
        expiredAfterSeconds: 7_776_000,
        consumedSignalsAfterSeconds: 604_800,
        intervalSeconds: 3_600,
        batchSize: 1_000,
        disableHint: messages.retentionDisableHint,
      },
    );
    assert.match(String(line.fields.disableHint), /sweep: false/);
    assert.equal(line.fields.worker, worker.id);
  });

  test('every worker tells once: two workers, two lines', async () => {
    const { logger, lines } = captureLogger();
    const tm = await open({ logger });
    const a = tm.worker();
    const b = tm.worker();
    await Promise.all([a.start(), a.start(), b.start()]);
    await Promise.all([a.stop(), b.stop()]);
    assert.deepEqual(
      lines(messages.retentionEnabled)
        .map((r) => r.fields.worker)
        .sort(),
      [a.id, b.id].sort(),
    );
  });

  test('the line shows the engine policy in force; a status without a window shows null (kept forever)', async () => {
    const { logger, lines } = captureLogger();
    const tm = await open({ logger, retention: { ttlSeconds: 600, statuses: [JobStatus.COMPLETED] } });
    const worker = tm.worker({ sweep: { intervalSeconds: 120, batchSize: 50 } });
    await worker.start();
    await worker.stop();
    const [line] = lines(messages.retentionEnabled);
    assert.equal(line.fields.completedAfterSeconds, 600);
    assert.equal(line.fields.failedAfterSeconds, null);
    assert.equal(line.fields.consumedSignalsAfterSeconds, null);
    assert.equal(line.fields.intervalSeconds, 120);
    assert.equal(line.fields.batchSize, 50);
  });

  test('sweep: false logs one warning instead, and the node runs no retention sweep', async () => {
    const { logger, records } = captureLogger();
    const tm = await open({ logger });
    const worker = tm.worker({ sweep: false });
    await worker.start();
    await worker.start();
    assert.equal(worker.service('retention'), undefined);
    await worker.stop();
    const lines = records.filter((r) => STARTUP.includes(r.message as never));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, 'warn');
    assert.equal(
      lines[0].message,
      'retention sweep is disabled; finished jobs and consumed signals accumulate until deleted by other means',
    );
  });

  test('engine retention: false warns once with the jobs that still carry a window; those are still swept', async () => {
    const { logger, records } = captureLogger();
    const tm = await open({ logger, retention: false });
    const own = await insertJob(tm, { status: 'completed', retention: { completed: 60 }, finishedAt: -120 });
    const kept = await insertJob(tm, { status: 'completed', finishedAt: -120 });
    const worker = tm.worker();
    await worker.start();
    const service = worker.service('retention');
    assert.ok(service, 'the sweep still runs for policies set below the engine');
    await service.runNow();
    await worker.stop();
    const lines = records.filter((r) => STARTUP.includes(r.message as never));
    assert.deepEqual(
      lines.map((r) => [r.level, r.message]),
      [['warn', messages.retentionKeptByDefault]],
    );
    assert.equal(lines[0].fields.finishedJobsWithWindow, 1, 'the one job that carries a window');
    assert.match(String(lines[0].fields.hint), /tm\.pauseRetention/);
    assert.equal(await jobExists(tm, own), false);
    assert.equal(await jobExists(tm, kept), true);
  });

  test('a storage without the retention capability: one warning, no sweep, everything else works', async () => {
    const { logger, records } = captureLogger();
    const tm = await open({ logger, capabilities: { retention: false } });
    tm.createQueue({ name: 'q', handler: async () => 'ok' });
    const due = await insertJob(tm, { status: 'completed', purgeAfter: -60 });
    const worker = tm.worker({ pollIntervalSeconds: 0.05 });
    await worker.start();
    await worker.start();
    assert.equal(worker.service('retention'), undefined);
    assert.equal(worker.service('unique-locks'), undefined);
    const { id } = await tm.addJob({ queue: 'q' });
    assert.equal(await tm.result(id, { timeoutSeconds: 15 }), 'ok');
    await worker.stop();
    const lines = records.filter((r) => STARTUP.includes(r.message as never));
    assert.deepEqual(
      lines.map((r) => [r.level, r.message]),
      [['warn', messages.retentionUnsupported]],
    );
    await assert.rejects(tm.sweep(), RetentionUnsupportedError);
    await assert.rejects(tm.sweep({ dryRun: true }), RetentionUnsupportedError);
    await assert.rejects(tm.removeJobs(), RetentionUnsupportedError);
    assert.deepEqual(await tm.listSweeps(), [], 'the history still reads (for dashboards)');
    assert.equal(await jobExists(tm, due), true);
  });

  test('a batch size above 10000 is clamped with one warning', async () => {
    const { logger, records } = captureLogger();
    const tm = await open({ logger });
    const worker = tm.worker({ sweep: { batchSize: 50_000 }, uniqueLockSweep: { batchSize: 10_000 } });
    assert.deepEqual(worker.options.sweep, { intervalSeconds: 3_600, batchSize: 10_000 });
    assert.deepEqual(worker.options.uniqueLockSweep, { intervalSeconds: 3_600, batchSize: 10_000 });
    await worker.start();
    await worker.stop();
    await worker.start();
    await worker.stop();
    const clamps = records.filter((r) => r.level === 'warn' && /batchSize/.test(r.message));
    assert.equal(clamps.length, 1);
    assert.match(clamps[0].message, /sweep\.batchSize 50000 .*clamped to 10000/);
    const [line] = records.filter((r) => r.message === messages.retentionEnabled);
    assert.equal(line.fields.batchSize, 10_000);
  });
});
