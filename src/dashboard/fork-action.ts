import type { ForkPoint } from '../jobs/fork-job.js';
import type { ActionResult } from './actions.js';
import { type DashboardContext, href } from './context.js';

/**
 * Fork a job from the job page: `from` is `failure` or `step:<name>`. The engine checks the
 * point (a step the job recorded; a failed job for its failure) and refuses anything else with
 * a typed error the dashboard shows; nothing is written then. Goes to the new job's page.
 */
export async function runForkJob(
  ctx: DashboardContext,
  id: string,
  form: URLSearchParams,
): Promise<ActionResult> {
  const from = form.get('from') ?? '';
  const point: ForkPoint = from === 'failure' ? { failure: true } : { step: from.replace(/^step:/, '') };
  const fork = await ctx.tm.forkJob(id, { from: point, ...ctx.by });
  return { redirect: href(ctx, `/jobs/${fork.id}`, { done: 'fork' }) };
}
