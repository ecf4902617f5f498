import { isFinished } from '../job-status.js';
import { type DashboardContext, href } from './context.js';
import { type Html, html } from './html.js';
import { layout, notice } from './layout.js';
import { type PurgeRequest, purgeConfirmPage, purgeDonePage, purgeFormPage } from './pages/purge.js';

/** What an action answers: a redirect back to where the result shows, or a page. */
export type ActionResult = { redirect: string } | { status: number; page: Html };

type JobAction = 'retry' | 'cancel' | 'run-now' | 'pause' | 'resume' | 'delete' | 'delete-subtree';

/**
 * Job actions, each one call of the public API, so the engine's rules apply unchanged (a
 * refusal, such as deleting an in-flight job, throws a typed error that the caller shows).
 */
export async function runJobAction(
  ctx: DashboardContext,
  id: string,
  action: JobAction,
): Promise<ActionResult> {
  const { tm } = ctx;
  switch (action) {
    case 'retry':
      await tm.retryJob(id, ctx.by);
      break;
    case 'cancel':
      await tm.cancelJob(id, ctx.by);
      break;
    case 'run-now':
      await tm.runNow(id, ctx.by);
      break;
    case 'pause':
      await tm.pauseJob(id, ctx.by);
      break;
    case 'resume':
      await tm.resumeJob(id, ctx.by);
      break;
    case 'delete':
      await tm.deleteJob(id, ctx.by);
      return deleted(ctx, `Job ${id} was deleted.`);
    case 'delete-subtree': {
      const n = await tm.deleteWorkflowSubtree(id, ctx.by);
      return deleted(ctx, `Job ${id} and its subtree were deleted (${n} jobs).`);
    }
  }
  return { redirect: href(ctx, `/jobs/${id}`, { done: action }) };
}

function deleted(ctx: DashboardContext, message: string): ActionResult {
  return {
    status: 200,
    page: layout(
      ctx,
      'Deleted',
      '/jobs',
      html`${notice('ok', message)}<a href="${href(ctx, '/jobs')}">Back to jobs</a>`,
    ),
  };
}

export async function runQueueAction(
  ctx: DashboardContext,
  form: URLSearchParams,
  action: 'pause' | 'resume',
): Promise<ActionResult> {
  const queue = form.get('queue') ?? '';
  if (action === 'pause') await ctx.tm.pauseQueue(queue, ctx.by);
  else await ctx.tm.resumeQueue(queue, ctx.by);
  // The queue's own page sends from=queue: back there, else to the queues page.
  return { redirect: href(ctx, form.get('from') === 'queue' ? `/queues/${encodeURIComponent(queue)}` : '/') };
}

/**
 * Purge in two posts: `preview` counts with a dry run and shows a confirmation form;
 * `confirm` (which must carry confirm=yes) deletes through tm.removeJobs.
 */
export async function runPurge(
  ctx: DashboardContext,
  form: URLSearchParams,
  step: 'preview' | 'confirm',
): Promise<ActionResult> {
  const parsed = parsePurge(form);
  if (typeof parsed === 'string') return { status: 400, page: await purgeFormPage(ctx, parsed) };
  const options = {
    ...(parsed.queue ? { queue: parsed.queue } : {}),
    statuses: parsed.statuses,
    olderThanSeconds: parsed.olderThanSeconds,
  };
  if (step === 'preview' || form.get('confirm') !== 'yes') {
    const count = await ctx.tm.removeJobs({ ...options, dryRun: true });
    return { status: 200, page: purgeConfirmPage(ctx, parsed, count) };
  }
  const deletedCount = await ctx.tm.removeJobs({ ...options, ...ctx.by });
  return { status: 200, page: purgeDonePage(ctx, parsed, deletedCount) };
}

function parsePurge(form: URLSearchParams): PurgeRequest | string {
  const statuses = form.getAll('status').filter((s) => s !== '');
  if (statuses.length === 0) return 'Choose at least one status to purge.';
  const unknown = statuses.find((s) => !isFinished(s));
  if (unknown !== undefined)
    return `Only finished jobs can be purged; '${unknown}' is not a finished status.`;
  const custom = form.get('olderThanCustom')?.trim();
  const raw = custom ? custom : (form.get('olderThanSeconds') ?? '').trim();
  const olderThanSeconds = Number(raw);
  if (raw === '' || !Number.isFinite(olderThanSeconds) || olderThanSeconds < 0) {
    return `'finished more than' must be a number of seconds (0 or more), got '${raw}'.`;
  }
  const queue = form.get('queue')?.trim();
  return { queue: queue ? queue : undefined, statuses, olderThanSeconds };
}
