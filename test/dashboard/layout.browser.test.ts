import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tidemark } from '../../src/index.js';
import { sharedChromium } from '../support/browser.js';
import { seedDashboard } from '../support/dashboard.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import {
  assertFits,
  assertReadable,
  discoverPages,
  measureOverflow,
  measureText,
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

  test('the text checks can fail: SVG text scaled below 10 px, small CSS text, a short word broken mid-token', async () => {
    const page = await browser().newPage({ viewport: { width: 390, height: 844 } });
    try {
      // A chart's label inside a viewBox 720 wide drawn 360 px wide: 11 px becomes 5.5 px.
      await page.setContent(
        '<body style="margin:0"><svg viewBox="0 0 720 150" style="width:360px"><text x="10" y="20" font-size="11">scaled label</text></svg><p style="font-size:9px">tiny note</p></body>',
      );
      const scaled = await measureText(page);
      assert.match(scaled.small.join(' '), /5\.5 px "scaled label"/);
      assert.match(scaled.small.join(' '), /9\.0 px "tiny note"/);
      assert.throws(() => assertReadable(scaled, 'scaled', 390), /scaled draws text below 10 px at 390 px/);
      // The same label in HTML at 11 px, and a closed <details> (not drawn), pass.
      await page.setContent(
        '<body style="margin:0"><span style="font-size:11px">label</span><details><summary>values</summary><p style="font-size:6px">hidden</p></details></body>',
      );
      assertReadable(await measureText(page), 'html labels', 390);

      // A queue name and a number in cells squeezed narrower than them, allowed to break anywhere.
      const squeezed = (wrap: string) =>
        `<body style="margin:0;font:14px sans-serif"><div style="width:70px;overflow-wrap:${wrap}">demo.payments</div><div style="width:60px;overflow-wrap:${wrap}">(7,776,000 s)</div></body>`;
      await page.setContent(squeezed('anywhere'));
      const broken = await measureText(page);
      assert.match(broken.broken.join(' '), /"demo\.payments"/);
      assert.match(broken.broken.join(' '), /"\(7,776,000"/);
      assert.throws(
        () => assertReadable(broken, 'squeezed', 390),
        /squeezed breaks a word mid-token at 390 px/,
      );
      // Kept whole (it sticks out instead, which the overflow check sees), or broken between
      // words, after a hyphen, or inside a value longer than any phone: all pass.
      await page.setContent(squeezed('normal'));
      assertReadable(await measureText(page), 'whole words', 390);
      await page.setContent(
        `<body style="margin:0"><div style="width:80px">nightly-report run</div><div style="width:120px;overflow-wrap:anywhere">${LONG_WORD}</div></body>`,
      );
      assertReadable(await measureText(page), 'allowed breaks', 390);
    } finally {
      await page.close();
    }
  });

  test('every page reached from the navigation fits 1280 and 390 px, with readable text; screenshots of each', async () => {
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
    // Audit rows, one with a bulk action's long filter (matching no job, so every page keeps
    // its seeded state), so the Audit page shows them.
    await tm.pauseSchedule('nightly-report', { actor: 'ops-bot', source: 'dashboard' });
    await tm.resumeSchedule('nightly-report', { actor: 'alice.long-name@example.com', source: 'cli' });
    await tm.retryJobs(
      { status: 'failed', q: 'no job says this: a filter as long as an operator types it', since: 86_400 },
      { actor: 'alice' },
    );
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
      'audit',
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
          const label = `${target.name} (${target.url.slice(url.length - 1)})`;
          try {
            assertFits(await measureOverflow(page), label);
          } catch (error) {
            problems.push((error as Error).message);
          }
          try {
            assertReadable(await measureText(page), label, size.width);
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
        assertReadable(await measureText(page), 'login', size.width);
      } finally {
        await page.close();
      }
    }
  });
});
