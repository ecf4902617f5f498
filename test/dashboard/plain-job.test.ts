import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { get } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

describeOnOneDriver('dashboard job page: workflow panels', ({ openOnClock }) => {
  test('a plain job shows no empty checkpoint, signal or tree panels; a workflow job shows them', async () => {
    const tm = await openOnClock({ logger: silentLogger });
    tm.createQueue({ name: 'plain', handler: async () => ({ ok: true }) });
    tm.createQueue({
      name: 'flow',
      handler: async (_job, ctx) => {
        await ctx.step('charge', async () => ({ charged: true }));
        return { done: true };
      },
    });
    const plain = await tm.addJob({ queue: 'plain', data: {} });
    const flow = await tm.addJob({ queue: 'flow', data: {} });
    await tm.runUntilIdle();
    const { url } = await tm.dashboard({ port: 0 });

    const plainPage = (await get(`${url}jobs/${plain.id}`)).body;
    assert.match(plainPage, /id="plain-job"/);
    assert.doesNotMatch(plainPage, /<h2>Checkpoints|<h2>Signals|<h2>Workflow tree/);

    const flowPage = (await get(`${url}jobs/${flow.id}`)).body;
    assert.doesNotMatch(flowPage, /id="plain-job"/);
    assert.match(flowPage, /<h2>Checkpoints \(1\)<\/h2>/);
    assert.match(flowPage, /<h2>Workflow tree<\/h2>/);
  });
});
