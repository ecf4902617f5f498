import assert from 'node:assert/strict';
import type { Tidemark } from '../../src/index.js';
import { fastWorker, waitForStatus } from './jobs.js';

/** Markup that would run if any of it reached a page unescaped: each sets a window flag. */
export const XSS = {
  queue: 'q<script>window.__xss="queue"</script>',
  queue2: 'q2"><img src=x onerror="window.__xss=\'queue2\'">',
  data: '<script>window.__xss="data"</script>"><img src=x onerror="window.__xss=\'data\'">',
  error: '"><img src=x onerror="window.__xss=\'error\'"><script>window.__xss="error"</script>',
  step: '<script>window.__xss="step"</script>',
  signal: '"><img src=x onerror="window.__xss=\'signal\'">',
  pendingSignal: '<svg onload="window.__xss=\'pending\'">',
};

/** Fragments that must never appear raw in a page (only their escaped form may). */
export const RAW_MARKUP = [/<script>window/i, /<img src=x/i, /<svg onload/i, /onerror="window/i];

export interface Seeded {
  completed: string[];
  failed: string;
  /** Failed its first attempt, completed on the second. */
  retrying: string;
  pending: string;
  workflow: string;
  parent: string;
  child: string;
}

/**
 * A small, varied data set made through the public API and a worker: completed jobs, a
 * failed job, a workflow with hostile checkpoint and signal names that failed, a pending
 * job, a parent with a child, and hostile queue names, data and errors throughout.
 */
export async function seedDashboard(tm: Tidemark): Promise<Seeded> {
  tm.createQueue({ name: 'mail', handler: async (job) => ({ sent: (job.data as { to: string }).to }) });
  tm.createQueue({
    name: 'billing',
    maxAttempts: 2,
    backoff: { delaySeconds: 0.01 },
    handler: async (job) => {
      const data = job.data as { fail?: boolean; failOnce?: boolean };
      if (data.fail || (data.failOnce && job.attempts === 1)) throw new Error('card declined');
      return { charged: true };
    },
  });
  tm.createQueue({
    name: XSS.queue,
    maxAttempts: 1,
    signals: { [XSS.signal]: 1, [XSS.pendingSignal]: 1 },
    handler: async (_job, ctx) => {
      // What the job says of itself is hostile too: the job page shows all of it.
      ctx.progress({ stage: XSS.data });
      ctx.metadata.set(XSS.pendingSignal, XSS.data);
      ctx.log.warn(XSS.error, { html: XSS.data });
      await ctx.step(XSS.step, async () => ({ html: XSS.data }));
      await ctx.waitForSignal(XSS.signal, { timeoutSeconds: 30 });
      throw new Error(XSS.error);
    },
  });
  tm.createQueue({ name: XSS.queue2, handler: async () => XSS.data });
  tm.createQueue({ name: 'held' });
  tm.createQueue({
    name: 'tree',
    handler: async (job, ctx) => {
      if ((job.data as { child?: boolean }).child) return 'leaf';
      return ctx.runChild('tree', { child: true });
    },
  });
  const completed = (
    await tm.addJobs(
      Array.from({ length: 12 }, (_, i) => ({ queue: 'mail', data: { to: `user${i}@example.com` } })),
    )
  ).map((r) => r.id);
  const failed = (await tm.addJob({ queue: 'billing', data: { invoice: 7, fail: true } })).id;
  const retrying = (await tm.addJob({ queue: 'billing', data: { invoice: 8, failOnce: true } })).id;
  const workflow = (
    await tm.addJob({ queue: XSS.queue, data: { note: XSS.data }, tags: [XSS.step, 'tagged'] })
  ).id;
  await tm.signal(workflow, XSS.signal, { note: XSS.data });
  await tm.signal(workflow, XSS.pendingSignal, { note: XSS.data });
  await tm.addJob({ queue: XSS.queue2, data: { note: XSS.data } });
  const parent = (await tm.addJob({ queue: 'tree', data: {} })).id;
  const pending = (await tm.addJob({ queue: 'held', data: { waiting: true } })).id;
  const worker = fastWorker(tm, { queues: ['mail', 'billing', XSS.queue, XSS.queue2, 'tree'] });
  await worker.start();
  try {
    for (const id of completed) await waitForStatus(tm, id, 'completed');
    await waitForStatus(tm, failed, 'failed');
    await waitForStatus(tm, retrying, 'completed');
    await waitForStatus(tm, workflow, 'failed');
    await waitForStatus(tm, parent, 'completed');
  } finally {
    await worker.stop();
  }
  const detail = await tm.getJobDetail(parent);
  assert.ok(detail?.children[0], 'the tree job has a child');
  return { completed, failed, retrying, pending, workflow, parent, child: detail.children[0].id };
}

/** The CSRF token in a page's forms. */
export function csrfIn(page: string): string {
  const match = page.match(/name="csrf" value="([^"]+)"/);
  assert.ok(match, 'the page carries a CSRF token');
  return match[1];
}

export async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; res: Response }> {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, body: await res.text(), res };
}

export async function post(
  url: string,
  fields: Record<string, string | string[]>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; res: Response }> {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) form.append(key, item);
  }
  const res = await fetch(url, {
    method: 'POST',
    body: form,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    redirect: 'manual',
  });
  return { status: res.status, body: await res.text(), res };
}

/** The fields the confirmation form posts (its hidden inputs), as a browser would send them. */
export function confirmForm(page: string): Record<string, string[]> {
  const form = page.match(
    /<form method="post" action="[^"]*\/jobs\/bulk\/confirm" id="bulk-confirm">([\s\S]*?)<\/form>/,
  );
  assert.ok(form, 'the page has a confirmation form');
  const fields: Record<string, string[]> = {};
  for (const [, name, value] of form[1].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    const text = value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&#96;/g, '`')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    fields[name] = [...(fields[name] ?? []), text];
  }
  return fields;
}
