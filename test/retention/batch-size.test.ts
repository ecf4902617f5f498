import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';
import { captureLogger } from './support/capture-logger.js';

const RANGE = /batch sizes run from 1 to 10000/;

describeEachDriver('one batch-size rule everywhere', ({ open }) => {
  test('above 10000: clamped by one warning that gives the real range, for every entry point', async () => {
    const { logger, records } = captureLogger();
    const tm = await open({ logger });
    tm.createQueue({ name: 'q' });
    await insertJob(tm, { queue: 'q', status: 'completed', purgeAfter: -60 });
    assert.equal((await tm.sweep({ batchSize: 50_000 })).jobs, 1);
    await tm.sweep({ batchSize: 50_000 });
    await insertJob(tm, { queue: 'q', status: 'completed', finishedAt: -60 });
    assert.equal(await tm.removeJobs({ batchSize: 20_000 }), 1);
    assert.equal((await tm.applyRetention({ queue: 'q', policy: false, batchSize: 10_001 })).dryRun, false);
    const worker = tm.worker({ sweep: { batchSize: 1e9 } });
    assert.deepEqual(worker.options.sweep, { intervalSeconds: 3_600, batchSize: 10_000 });
    await worker.start();
    await worker.stop();
    const clamps = records.filter((r) => r.level === 'warn' && /clamped/.test(r.message));
    assert.deepEqual(
      clamps.map((r) => r.message.split(' ').slice(0, 2).join(' ')),
      ['batchSize 50000', 'batchSize 20000', 'batchSize 10001', 'sweep.batchSize 1000000000'],
      'one warning per value, not one per call',
    );
    for (const clamp of clamps) assert.match(clamp.message, RANGE);
  });

  test('not a whole number, or below 1: refused with the real range, everywhere', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const calls: [string, (value: unknown) => unknown][] = [
      ['batchSize', (v) => tm.sweep({ batchSize: v as number })],
      ['batchSize', (v) => tm.removeJobs({ batchSize: v as number })],
      ['batchSize', (v) => tm.applyRetention({ queue: 'q', batchSize: v as number })],
      ['sweep.batchSize', (v) => tm.worker({ sweep: { batchSize: v as number } })],
      ['uniqueLockSweep.batchSize', (v) => tm.worker({ uniqueLockSweep: { batchSize: v as number } })],
    ];
    for (const [field, call] of calls) {
      for (const value of [0, -5, 1.5, '100', Number.NaN, Number.POSITIVE_INFINITY]) {
        await assert.rejects(
          async () => call(value),
          (error: unknown) => {
            assert.ok(error instanceof InvalidOptionError, String(error));
            assert.equal(error.field, field);
            assert.match(
              error.message,
              /a whole number from 1 to 10000 \(larger values are clamped to 10000\)/,
            );
            return true;
          },
          `${field} = ${String(value)}`,
        );
      }
    }
  });
});
