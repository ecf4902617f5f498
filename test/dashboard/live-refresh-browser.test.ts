import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sharedChromium } from '../support/browser.js';
import { describeOnOneDriver } from '../support/each-driver.js';

const browser = sharedChromium();

// The script and the page are the same on both drivers; live-refresh.test.ts covers the server side on both.
describeOnOneDriver('dashboard live refresh in a browser', ({ open }) => {
  test('with refresh=2 the page reloads itself under the CSP; without it, it does not load the script', async () => {
    const tm = await open();
    tm.createQueue({ name: 'mail' });
    await tm.listQueues();
    const dashboard = await tm.dashboard({ port: 0 });
    const page = await browser().newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(request.url());
    });
    try {
      await page.goto(`${dashboard.url}queues/mail`);
      assert.deepEqual(scripts, [], 'no script is loaded while refresh is off');
      await page.click('a[data-refresh="on"]');
      await page.waitForURL(/refresh=5/);
      assert.equal(scripts.length, 1);
      await page.goto(`${dashboard.url}queues/mail?refresh=2&window=24h`);
      // The script reloads the page: a second load of the same URL follows without any action.
      const reloaded = await page.waitForRequest(
        (request) => request.url().endsWith('/queues/mail?refresh=2&window=24h'),
        {
          timeout: 20_000,
        },
      );
      assert.equal(reloaded.isNavigationRequest(), true);
      assert.deepEqual(problems, [], 'no CSP violation or script error');
    } finally {
      await page.close();
    }
  });
});
