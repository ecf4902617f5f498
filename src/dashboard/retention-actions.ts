import type { ActionResult } from './actions.js';
import { type DashboardContext, href } from './context.js';
import { applyConfirmPage, applyDonePage } from './pages/apply-retention.js';

/** Pause or resume retention cluster-wide (the pause needs a reason), then back to the page. */
export async function runRetentionSwitch(
  ctx: DashboardContext,
  form: URLSearchParams,
  action: 'pause' | 'resume',
): Promise<ActionResult> {
  if (action === 'pause')
    await ctx.tm.pauseRetention({ reason: (form.get('reason') ?? '').trim(), ...ctx.by });
  else await ctx.tm.resumeRetention(ctx.by);
  return { redirect: href(ctx, '/retention', { done: action === 'pause' ? 'paused' : 'resumed' }) };
}

/** Place a hold on a queue or on job ids (comma or space separated). */
export async function runPlaceHold(ctx: DashboardContext, form: URLSearchParams): Promise<ActionResult> {
  const queue = form.get('queue')?.trim();
  const ids = (form.get('ids') ?? '').split(/[\s,]+/).filter(Boolean);
  await ctx.tm.holdJobs({
    ...(queue ? { queue } : {}),
    ...(ids.length > 0 ? { ids } : {}),
    reason: (form.get('reason') ?? '').trim(),
    ...ctx.by,
  });
  return { redirect: href(ctx, '/retention', { done: 'held' }) };
}

export async function runReleaseHold(ctx: DashboardContext, form: URLSearchParams): Promise<ActionResult> {
  await ctx.tm.releaseHold(form.get('hold') ?? '', ctx.by);
  return { redirect: href(ctx, '/retention', { done: 'released' }) };
}

/**
 * Apply a queue's stored policy to its history in two posts: `preview` counts with a dry
 * run; `confirm` (which must carry confirm=yes) re-freezes.
 */
export async function runApplyRetention(
  ctx: DashboardContext,
  form: URLSearchParams,
  step: 'preview' | 'confirm',
): Promise<ActionResult> {
  const queue = form.get('queue') ?? '';
  if (step === 'preview' || form.get('confirm') !== 'yes') {
    const preview = await ctx.tm.applyRetention({ queue, dryRun: true });
    return { status: 200, page: applyConfirmPage(ctx, queue, preview.jobs, preview.retention) };
  }
  const applied = await ctx.tm.applyRetention({ queue, ...ctx.by });
  return { status: 200, page: applyDonePage(ctx, queue, applied.jobs, applied.retention) };
}
