import { parseFilter } from '../admin/job-list.js';
import { BulkSetGrewError } from '../errors.js';
import { isJobStatus } from '../job-status.js';
import type { BulkActionOptions, BulkJobFilter, BulkOutcome, StateActionName } from '../jobs/bulk-actions.js';
import { isOneOf } from '../model/guards.js';
import type { ActionResult } from './actions.js';
import type { DashboardContext } from './context.js';
import { layout, notice } from './layout.js';
import { type BulkRequest, bulkConfirmPage, bulkDonePage } from './pages/bulk.js';

/**
 * Retry or cancel jobs in bulk, in two posts from the job list: `preview` counts with a dry
 * run and shows a confirmation form carrying the filter, the count and the highest id
 * counted; `confirm` (which must carry confirm=yes and both) acts through tm.retryJobs,
 * tm.cancelJobs or tm.runJobsNow on those jobs only, and is refused with a fresh count when more match now.
 */
export async function runBulk(
  ctx: DashboardContext,
  form: URLSearchParams,
  step: 'preview' | 'confirm',
): Promise<ActionResult> {
  const request = parseBulk(form);
  if (typeof request === 'string') return refused(ctx, request);
  const act = BULK_CALLS[request.action](ctx);
  const preview = async (status: number, warning?: string) => {
    const counted = await act(request.filter, { dryRun: true });
    return { status, page: bulkConfirmPage(ctx, request, counted, warning) };
  };
  if (step === 'preview' || form.get('confirm') !== 'yes') return preview(200);
  const confirmed = parseConfirmed(form);
  if (typeof confirmed === 'string') return refused(ctx, confirmed);
  try {
    return {
      status: 200,
      page: bulkDonePage(ctx, request, await act(request.filter, { ...confirmed, ...ctx.by })),
    };
  } catch (error) {
    if (!(error instanceof BulkSetGrewError)) throw error;
    return preview(
      409,
      `${error.matched} jobs match now, more than the ${error.confirmed} you confirmed: nothing was changed. Check the new count and confirm again.`,
    );
  }
}

function refused(ctx: DashboardContext, message: string): ActionResult {
  return { status: 400, page: layout(ctx, 'Bulk action', '/jobs', notice('error', message)) };
}

/** The count the preview showed and the highest id it counted, as the confirmation form carries them. */
function parseConfirmed(form: URLSearchParams): { maxMatched: number; throughId: string } | string {
  const matched = form.get('matched') ?? '';
  const through = form.get('through') ?? '';
  if (!/^\d{1,9}$/.test(matched) || !/^\d{1,19}$/.test(through)) {
    return 'This confirmation carries no count: start again from the job list, so that what is changed is what was counted.';
  }
  return { maxMatched: Number(matched), throughId: through };
}

const BULK_ACTIONS: readonly StateActionName[] = ['retry', 'cancel', 'run-now'];

/** The engine's call behind each bulk action. */
const BULK_CALLS: Record<
  StateActionName,
  (ctx: DashboardContext) => (filter: BulkJobFilter, options: BulkActionOptions) => Promise<BulkOutcome>
> = {
  retry: (ctx) => ctx.tm.retryJobs.bind(ctx.tm),
  cancel: (ctx) => ctx.tm.cancelJobs.bind(ctx.tm),
  'run-now': (ctx) => ctx.tm.runJobsNow.bind(ctx.tm),
};

function parseBulk(form: URLSearchParams, now = Date.now()): BulkRequest | string {
  const match = (form.get('do') ?? '').match(/^(retry|cancel|run-now)-(matching|selected)$/);
  const action = match?.[1];
  if (!match || !isOneOf(BULK_ACTIONS, action)) {
    return 'Choose retry, cancel or run now, for the matching or the selected jobs.';
  }
  if (match[2] === 'selected') {
    const ids = form.getAll('id').filter(Boolean);
    if (ids.length === 0) return 'Tick at least one job in the list first.';
    return { action, filter: { ids } };
  }
  // The job list's own reading of its filter: the action matches what the list showed.
  const { filter, problems } = parseFilter(form);
  if (problems.length > 0) return problems.join('; ');
  const bulk: BulkJobFilter = {};
  if (filter.queue !== undefined) bulk.queue = filter.queue;
  // The list's filter holds a known status or none.
  if (isJobStatus(filter.status)) bulk.status = filter.status;
  // "Created in the last hour" is fixed when counted, so the confirmation acts on the same window.
  if (filter.since !== undefined) bulk.from = new Date(now - filter.since * 1000);
  else if (filter.from !== undefined) bulk.from = filter.from;
  if (filter.since === undefined && filter.to !== undefined) bulk.to = filter.to;
  if (filter.q !== undefined) bulk.q = filter.q;
  if (filter.tags !== undefined) bulk.tags = filter.tags;
  return { action, filter: bulk };
}
