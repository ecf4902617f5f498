import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';

describeEachDriver('maintenance tick', ({ open }) => {
  test('one node per interval: a second worker asking for the same turn skips it', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => null });
    const ticks: unknown[] = [];
    tm.on('maintenance:tick', (e) => ticks.push(e));
    // Intervals far longer than the test, so only the explicit runs below happen.
    const a = fastWorker(tm, { tickIntervalSeconds: 86_400 });
    const b = fastWorker(tm, { tickIntervalSeconds: 86_400 });
    await Promise.all([a.start(), b.start()]);
    await a.service('tick')?.runNow();
    await b.service('tick')?.runNow();
    await a.service('tick')?.runNow();
    assert.equal(ticks.length, 1);
  });
});
