import type { ActionResult } from './actions.js';
import { type DashboardContext, href } from './context.js';

/** Remove a schedule (after the confirmation page), then back to the list saying so. */
export async function runUnschedule(ctx: DashboardContext, form: URLSearchParams): Promise<ActionResult> {
  const name = form.get('name') ?? '';
  await ctx.tm.unschedule(name, ctx.by);
  return { redirect: href(ctx, '/schedules', { unscheduled: name }) };
}

const SWITCH_DONE = { pause: 'paused', resume: 'resumed' } as const;

/** Pause or resume a schedule, then back to the list saying so. */
export async function runScheduleSwitch(
  ctx: DashboardContext,
  form: URLSearchParams,
  action: 'pause' | 'resume',
): Promise<ActionResult> {
  const name = form.get('name') ?? '';
  if (action === 'pause') await ctx.tm.pauseSchedule(name, ctx.by);
  else await ctx.tm.resumeSchedule(name, ctx.by);
  return { redirect: href(ctx, '/schedules', { done: SWITCH_DONE[action], name }) };
}

/** Fire a schedule once now, then back to the list saying whether it fired. */
export async function runTriggerSchedule(
  ctx: DashboardContext,
  form: URLSearchParams,
): Promise<ActionResult> {
  const name = form.get('name') ?? '';
  const fired = await ctx.tm.triggerSchedule(name, ctx.by);
  return { redirect: href(ctx, '/schedules', { done: fired === null ? 'waiting' : 'triggered', name }) };
}
