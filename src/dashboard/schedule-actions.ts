import type { ActionResult } from './actions.js';
import { type DashboardContext, href } from './context.js';

/** Remove a schedule (after the confirmation page), then back to the list saying so. */
export async function runUnschedule(ctx: DashboardContext, form: URLSearchParams): Promise<ActionResult> {
  const name = form.get('name') ?? '';
  await ctx.tm.unschedule(name);
  return { redirect: href(ctx, '/schedules', { unscheduled: name }) };
}
