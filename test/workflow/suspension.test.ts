import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Logger, silentLogger } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { sleepWakeAt, startWorker, waitForStatus } from './fixtures/helpers.js';

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warnings, warn: (message) => warnings.push(message), child: undefined };
}

describeEachDriver('a handler that catches its suspension', ({ open }) => {
  test('still suspends: it neither completes early nor runs further steps', async () => {
    const logger = recordingLogger();
    const tm = await open({ logger });
    const seen = { caught: 0, caughtAgain: 0, after: 0 };
    tm.createQueue({
      name: 'wf',
      handler: async (_job, ctx) => {
        try {
          await ctx.sleep('nap', 0.5);
        } catch {
          seen.caught++;
        }
        try {
          await ctx.step('after', () => seen.after++);
        } catch {
          seen.caughtAgain++;
        }
        return 'done';
      },
    });
    await startWorker(tm);
    const { id } = await tm.addJob({ queue: 'wf' });
    const done = await waitForStatus(tm, id, 'completed');
    assert.equal(done.output, 'done');
    const wakeAt = await sleepWakeAt(tm, id, 'nap');
    assert.ok(done.finishedAt && done.finishedAt.getTime() >= wakeAt.getTime(), 'completed after the timer');
    assert.deepEqual(seen, { caught: 1, caughtAgain: 1, after: 1 });
    assert.ok(logger.warnings.some((w) => w.includes('caught a workflow suspension')));
  });
});
