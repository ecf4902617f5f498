import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { imageStats, screenshot, sharedChromium } from '../support/browser.js';
import { seedDashboard, XSS } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';

const browser = sharedChromium();

/** A page that records CSP violations and page errors, and reports the XSS flag. */
async function watchedPage(): Promise<{ page: Page; problems: string[]; xss: () => Promise<unknown> }> {
  const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, problems, xss: () => page.evaluate(() => (globalThis as { __xss?: unknown }).__xss) };
}

// What the browser sees does not depend on the driver; the actions behind it are tested on both (actions.test.ts).
describeOnOneDriver('dashboard in a browser', ({ kind, open }) => {
  test('a blank screenshot fails the non-blank check (the check can fail)', async () => {
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await page.setContent('<html><body style="background:#fff"></body></html>');
    const stats = await imageStats(browser(), await page.screenshot({ type: 'png' }));
    await page.close();
    assert.equal(stats.colours, 1);
    assert.ok(stats.luminanceStdDev < 0.01, `luminance sd ${stats.luminanceStdDev}`);
  });

  test('each page loads, looks like something, and no hostile value runs', async () => {
    const tm = await open();
    const seeded = await seedDashboard(tm);
    const { url } = await tm.dashboard({ port: 0 });
    const { page, problems, xss } = await watchedPage();
    const pages: [string, string][] = [
      ['queues', ''],
      ['jobs', 'jobs'],
      ['job-workflow', `jobs/${seeded.workflow}`],
      ['job-retried', `jobs/${seeded.retrying}`],
      ['job-parent', `jobs/${seeded.parent}`],
      ['retention', 'retention?preview=1'],
      ['purge', 'purge'],
      ['storage', 'storage'],
      ['workers', 'workers'],
    ];
    for (const [name, path] of pages) {
      const response = await page.goto(url + path);
      assert.equal(response?.status(), 200, path);
      assert.ok((await page.title()).endsWith('· Tidemark'), path);
      await screenshot(browser(), page, `${kind}-${name}`);
      assert.equal(await xss(), undefined, `${path}: no injected script ran`);
    }
    // The hostile names reached the page as text.
    await page.goto(`${url}jobs/${seeded.workflow}`);
    const text = await page.textContent('main');
    assert.ok(text?.includes(XSS.step), 'checkpoint name shown as text');
    assert.ok(text?.includes(XSS.signal), 'signal name shown as text');
    assert.equal(await page.locator('main img, main svg[onload], main script').count(), 0);
    assert.deepEqual(problems, [], 'no CSP violation, page error or dialog');
    await page.close();
  });

  test('filter the job list, open a job, retry it', async () => {
    const tm = await open();
    const seeded = await seedDashboard(tm);
    const { url } = await tm.dashboard({ port: 0 });
    const { page, problems, xss } = await watchedPage();
    await page.goto(`${url}jobs`);
    await page.selectOption('#job-filters select[name="status"]', 'failed');
    await Promise.all([page.waitForURL(/status=failed/), page.click('#job-filters button[type="submit"]')]);
    const statuses = await page.locator('table.jobs tbody .status').allTextContents();
    assert.ok(statuses.length >= 2, `failed jobs listed (${statuses.length})`);
    assert.ok(
      statuses.every((s) => s === 'failed'),
      statuses.join(','),
    );
    await page.selectOption('#job-filters select[name="queue"]', XSS.queue);
    await Promise.all([page.waitForURL(/queue=/), page.click('#job-filters button[type="submit"]')]);
    assert.equal(await xss(), undefined);
    await page.selectOption('#job-filters select[name="queue"]', 'billing');
    await Promise.all([page.waitForURL(/queue=billing/), page.click('#job-filters button[type="submit"]')]);
    await screenshot(browser(), page, `${kind}-jobs-filtered`);
    await Promise.all([
      page.waitForURL(new RegExp(`/jobs/${seeded.failed}$`)),
      page.click(`a[href="/jobs/${seeded.failed}"]`),
    ]);
    assert.equal(await page.textContent('h1'), `Job ${seeded.failed}`);
    assert.match((await page.textContent('pre.stack')) ?? '', /card declined/);
    await Promise.all([page.waitForURL(/done=retry/), page.click('button[data-action="retry"]')]);
    assert.match((await page.textContent('.notice.ok')) ?? '', /Job retried/);
    await screenshot(browser(), page, `${kind}-job-retried`);
    const job = await tm.getJob(seeded.failed);
    assert.equal(job?.status, 'pending');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('purge: choose, see the dry-run count, confirm, see what was deleted', async () => {
    const tm = await open();
    const seeded = await seedDashboard(tm);
    const { url } = await tm.dashboard({ port: 0 });
    const { page, problems } = await watchedPage();
    await page.goto(`${url}purge`);
    await page.selectOption('#purge-form select[name="queue"]', 'mail');
    await page.check('#purge-form input[name="status"][value="completed"]');
    await page.selectOption('#purge-form select[name="olderThanSeconds"]', '0');
    await Promise.all([
      page.waitForURL(/\/purge\/preview$/),
      page.click('#purge-form button[type="submit"]'),
    ]);
    assert.equal(await page.textContent('#purge-count'), String(seeded.completed.length));
    await screenshot(browser(), page, `${kind}-purge-confirm`);
    assert.ok(await tm.getJob(seeded.completed[0]), 'nothing deleted before confirming');
    await Promise.all([
      page.waitForURL(/\/purge\/confirm$/),
      page.click('#purge-confirm button[type="submit"]'),
    ]);
    assert.equal(await page.textContent('#purge-deleted'), String(seeded.completed.length));
    for (const id of seeded.completed) assert.equal(await tm.getJob(id), null);
    assert.ok(await tm.getJob(seeded.pending), 'other jobs stay');
    assert.deepEqual(problems, []);
    await page.close();
  });

  test('with a token the browser logs in once through the form', async () => {
    const tm = await open();
    tm.createQueue({ name: 'secret-queue' });
    const { url } = await tm.dashboard({ port: 0, token: 'a-long-enough-dashboard-token' });
    const { page, problems } = await watchedPage();
    await page.goto(url);
    assert.match(page.url(), /\/login$/);
    await page.fill('input[name="token"]', 'a-long-enough-dashboard-token');
    await Promise.all([page.waitForURL(url), page.click('#login-form button[type="submit"]')]);
    assert.ok((await page.textContent('table.queues'))?.includes('secret-queue'));
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'tidemark_session');
    assert.ok(session?.httpOnly, 'HttpOnly session cookie');
    assert.equal(session?.sameSite, 'Strict');
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
      '',
      'scripts cannot read it',
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
