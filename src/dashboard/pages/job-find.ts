import { isId } from '../../model/job-rules.js';
import { type DashboardContext, href } from '../context.js';
import type { Html } from '../html.js';
import { layout, notice } from '../layout.js';
import { findJobForm } from './jobs.js';

/**
 * `/jobs/find?id=N`, the job list's "go to job id" box: to the job's page when it exists,
 * else the box again with why not (404 when no job has the id, 400 when it is not an id).
 */
export async function findJobPage(
  ctx: DashboardContext,
): Promise<{ redirect: string } | { status: number; page: Html }> {
  const raw = (ctx.url.searchParams.get('id') ?? '').trim().replace(/^#/, '');
  if (!isId(raw)) {
    const problem = raw === '' ? 'Give a job id to go to.' : `'id' must be a job id (digits), got '${raw}'`;
    return { status: 400, page: page(ctx, raw, notice('error', problem)) };
  }
  if (await ctx.tm.getJob(raw)) return { redirect: href(ctx, `/jobs/${raw}`) };
  return {
    status: 404,
    page: page(
      ctx,
      raw,
      notice('error', `No job has the id ${raw}: it never existed, or retention or a purge deleted it.`),
    ),
  };
}

function page(ctx: DashboardContext, value: string, message: Html): Html {
  return layout(ctx, 'Find a job', '/jobs', [message, findJobForm(ctx, value)]);
}
