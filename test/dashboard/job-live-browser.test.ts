import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { sharedChromium } from '../support/browser.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { waitFor } from '../support/wait-for.js';

const browser = sharedChromium();

// The script and the page are the same on both drivers; job-events.test.ts covers the stream on both.
describeOnOneDriver('dashboard job page, live, in a browser', ({ open }) => {
  test('progress and metadata move on the page as the job reports, under the CSP; the finish loads the page once', async () => {
    const tm = await open({ logger: silentLogger });
    const gates: (() => void)[] = [];
    const gate = () => new Promise<void>((resolve) => gates.push(resolve));
    tm.createQueue({
      name: 'import',
      handler: async (_job, ctx) => {
        ctx.progress(10);
        await gate();
        ctx.progress(70);
        ctx.metadata.set('rows', '<b>700</b>');
        await gate();
        return 'ok';
      },
    });
    const { id } = await tm.addJob({ queue: 'import', data: {} });
    const worker = tm.worker({ pollIntervalSeconds: 0.02, sweep: false, uniqueLockSweep: false });
    await worker.start();
    await waitFor('the handler', () => gates.length === 1);
    const dashboard = await tm.dashboard({ port: 0 });
    const page = await browser().newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    let loads = 0;
    page.on('load', () => loads++);
    try {
      await page.goto(`${dashboard.url}jobs/${id}`);
      await page.waitForSelector('#live:not([hidden])');
      assert.equal(await page.textContent('#live-status'), 'active');
      gates.shift()?.();
      await page.locator('#live-progress', { hasText: '70%' }).waitFor();
      const metadata = await page.textContent('#live-metadata pre');
      assert.match(metadata ?? '', /"rows": "<b>700<\/b>"/, 'written as text');
      assert.equal(await page.locator('#live-metadata b').count(), 0, 'never as markup');
      assert.equal(loads, 1, 'moved without a reload');
      await waitFor('the second gate', () => gates.length === 1);
      gates.shift()?.();
      await page.locator('#live').waitFor({ state: 'detached', timeout: 20_000 });
      assert.equal(await page.textContent('#live-status'), 'completed');
      assert.equal(loads, 2, 'one load more, for the finished page');
      assert.deepEqual(problems, [], 'no CSP violation or script error');
    } finally {
      await page.close();
      await worker.stop();
    }
  });
});
