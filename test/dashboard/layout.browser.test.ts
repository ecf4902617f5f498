import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tidemark } from '../../src/index.js';
import { sharedChromium } from '../support/browser.js';
import { seedDashboard } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import {
  assertFits,
  discoverPages,
  measureOverflow,
  type PageToVisit,
  saveScreenshot,
  WIDTHS,
} from '../support/page-layout.js';

const browser = sharedChromium();

/** An unbroken value longer than any phone is wide: ids, URLs, tokens and hashes look like this. */
const LONG_WORD = `https://billing.example.com/invoices/${'a1b2c3d4e5'.repeat(12)}`;

/** Beyond the shared seed: long errors and stacks, long data, a workflow with steps and children, a hold, a sweep. */
async function seedRealistic(tm: Tidemark): Promise<{ failed: string; flow: string }> {
  const seeded = await seedDashboard(tm);
  tm.createQueue({
    name: 'invoice-reconciliation-with-a-rather-long-queue-name',
    maxAttempts: 1,
    handler: async () => {
      const error = new Error(
        `upstream refused ${LONG_WORD} with 502 after 3 tries: ${'retry later; '.repeat(12)}`,
      );
      error.stack = `${error.message}\n${Array.from({ length: 12 }, (_, i) => `    at reconcileInvoiceBatchWithUpstreamLedger (/srv/app/node_modules/@acme/ledger-client/dist/esm/reconcile/batch-${i}.js:${100 + i}:17)`).join('\n')}`;
      throw error;
    },
  });
  tm.createQueue({
    name: 'fulfilment',
    handler: async (job, ctx) => {
      if ((job.data as { child?: boolean }).child) return { shipped: LONG_WORD };
      await ctx.step('reserve-stock-in-every-warehouse', async () => ({ reservation: LONG_WORD }));
      await ctx.runChild('fulfilment', { child: true, label: LONG_WORD });
      await ctx.step('notify-customer', async () => ({ sent: true }));
      return { done: true };
    },
  });
  const failed = (
    await tm.addJob({
      queue: 'invoice-reconciliation-with-a-rather-long-queue-name',
      data: {
        invoice: LONG_WORD,
        lines: Array.from({ length: 8 }, (_, i) => ({ sku: `SKU-${i}`, note: LONG_WORD })),
      },
    })
  ).id;
  const flow = (await tm.addJob({ queue: 'fulfilment', data: { order: LONG_WORD } })).id;
  const worker = fastWorker(tm, {
    queues: ['invoice-reconciliation-with-a-rather-long-queue-name', 'fulfilment'],
  });
  await worker.start();
  try {
    await waitForStatus(tm, failed, 'failed');
    await waitForStatus(tm, flow, 'completed');
  } finally {
    await worker.stop();
  }
  await tm.holdJobs({ ids: [seeded.failed, failed], reason: `incident review ${LONG_WORD}` });
  await tm.holdJobs({ queue: 'mail', reason: 'audit' });
  await tm.sweep();
  return { failed, flow };
}

// The layout is the same on both drivers; one is enough for this slow crawl.
describeOnOneDriver('dashboard layout at desktop and phone widths', ({ kind, open }) => {
  test('the overflow check can fail: a wide element sticks out, the same one inside a scroll box does not', async () => {
    const page = await browser().newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.setContent('<body style="margin:0"><div id="wide" style="width:900px">wide</div></body>');
      const loose = await measureOverflow(page);
      assert.ok(loose.scrollWidth > 390, `page width ${loose.scrollWidth}`);
      assert.match(loose.offenders.join(' '), /div#wide/);
      assert.throws(() => assertFits(loose, 'loose'), /loose overflows at 390 px/);
      await page.setContent(
        '<body style="margin:0"><div style="overflow-x:auto"><div id="wide" style="width:900px">wide</div></div></body>',
      );
      const boxed = await measureOverflow(page);
      assertFits(boxed, 'boxed');
    } finally {
      await page.close();
    }
  });

  test('every page reached from the navigation fits 1280 and 390 px; screenshots of each', async () => {
    const tm = await open();
    const { failed, flow } = await seedRealistic(tm);
    // A schedule and a live worker, so those pages show rows; the worker takes a queue of its own.
    tm.createQueue({ name: 'nightly-report', handler: async () => null });
    await tm.schedule({
      name: 'nightly-report',
      cron: '0 3 * * *',
      queue: 'nightly-report',
      timezone: 'Europe/Berlin',
    });
    const worker = tm.worker({ queues: ['nightly-report'], concurrency: 2 });
    await worker.start();
    const { url } = await tm.dashboard({ port: 0 });
    const crawler = await browser().newPage({ viewport: WIDTHS[0] });
    const flowDetail = await tm.getJobDetail(flow);
    const seeds: PageToVisit[] = [
      { name: 'job-failed', url: `${url}jobs/${failed}` },
      { name: 'job-workflow-root', url: `${url}jobs/${flow}` },
      { name: 'job-workflow-child', url: `${url}jobs/${flowDetail?.children[0]?.id}` },
      { name: 'retention-preview', url: `${url}retention?preview=1` },
      { name: 'not-found', url: `${url}nothing-here` },
    ];
    const pages = await discoverPages(crawler, url, seeds);
    await crawler.close();
    const names = pages.map((p) => p.name);
    for (const expected of [
      'queues',
      'jobs',
      'retention',
      'purge',
      'storage',
      'schedules',
      'workers',
      'jobs-id',
      'jobs-id-confirm-action-delete',
    ]) {
      assert.ok(names.includes(expected), `${expected} was discovered (found ${names.join(', ')})`);
    }

    const problems: string[] = [];
    for (const size of WIDTHS) {
      const page = await browser().newPage({ viewport: size });
      try {
        for (const target of pages) {
          await page.goto(target.url);
          await saveScreenshot(browser(), page, size.width, `${kind}-${target.name}`);
          try {
            assertFits(await measureOverflow(page), `${target.name} (${target.url.slice(url.length - 1)})`);
          } catch (error) {
            problems.push((error as Error).message);
          }
        }
      } finally {
        await page.close();
      }
    }
    assert.deepEqual(problems, []);
  });

  test('the login page fits a phone too', async () => {
    const tm = await open();
    const { url } = await tm.dashboard({ port: 0, token: 'a-long-enough-dashboard-token' });
    for (const size of WIDTHS) {
      const page = await browser().newPage({ viewport: size });
      try {
        await page.goto(`${url}login`);
        await saveScreenshot(browser(), page, size.width, `${kind}-login`);
        assertFits(await measureOverflow(page), 'login');
      } finally {
        await page.close();
      }
    }
  });
});
