import { parseFilter } from '../admin/job-list.js';
import type { BulkActionName, BulkJobFilter } from '../jobs/bulk-actions.js';
import type { ActionResult } from './actions.js';
import type { DashboardContext } from './context.js';
import { layout, notice } from './layout.js';
import { type BulkRequest, bulkConfirmPage, bulkDonePage } from './pages/bulk.js';

/**
 * Retry or cancel jobs in bulk, in two posts from the job list: `preview` counts with a dry
 * run and shows a confirmation form; `confirm` (which must carry confirm=yes) acts through
 * tm.retryJobs / tm.cancelJobs and shows the outcome.
 */
export async function runBulk(
  ctx: DashboardContext,
  form: URLSearchParams,
  step: 'preview' | 'confirm',
): Promise<ActionResult> {
  const request = parseBulk(form);
  if (typeof request === 'string') {
    return { status: 400, page: layout(ctx, 'Bulk action', '/jobs', notice('error', request)) };
  }
  const act = request.action === 'retry' ? ctx.tm.retryJobs.bind(ctx.tm) : ctx.tm.cancelJobs.bind(ctx.tm);
  if (step === 'preview' || form.get('confirm') !== 'yes') {
    const preview = await act(request.filter, { dryRun: true });
    return { status: 200, page: bulkConfirmPage(ctx, request, preview.matched) };
  }
  return { status: 200, page: bulkDonePage(ctx, request, await act(request.filter)) };
}

function parseBulk(form: URLSearchParams, now = Date.now()): BulkRequest | string {
  const match = (form.get('do') ?? '').match(/^(retry|cancel)-(matching|selected)$/);
  if (!match) return 'Choose retry or cancel, for the matching or the selected jobs.';
  const action = match[1] as BulkActionName;
  if (match[2] === 'selected') {
    const ids = form.getAll('id').filter(Boolean);
    if (ids.length === 0) return 'Tick at least one job in the list first.';
    return { action, filter: { ids } };
  }
  const { filter, problems } = parseFilter(form);
  if (problems.length > 0) return problems.join('; ');
  const bulk: BulkJobFilter = {};
  if (filter.queue !== undefined) bulk.queue = filter.queue;
  if (filter.status !== undefined) bulk.status = filter.status as BulkJobFilter['status'];
  // "Created in the last hour" is fixed when counted, so the confirmation acts on the same window.
  if (filter.since !== undefined) bulk.from = new Date(now - filter.since * 1000);
  else if (filter.from !== undefined) bulk.from = filter.from;
  if (filter.since === undefined && filter.to !== undefined) bulk.to = filter.to;
  if (filter.q !== undefined) bulk.q = filter.q;
  return { action, filter: bulk };
}
