import { loadTree, TREE_LIMIT } from '../../admin/job-extras.js';
import { isFinished } from '../../job-status.js';
import { csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice, statusBadge } from '../layout.js';

/** The confirmation step before cancelling a job and its in-flight descendants (the cancel is a POST). */
export async function confirmCancelPage(ctx: DashboardContext, id: string): Promise<Html | null> {
  const job = await ctx.tm.getJob(id);
  if (!job) return null;
  const tree = await loadTree(ctx.core, id);
  const inFlight = tree.filter((n) => n.id !== job.id && !isFinished(n.status)).length;
  const below =
    inFlight === 0
      ? ''
      : html` and its ${inFlight}${tree.length > TREE_LIMIT ? '+' : ''} in-flight descendants`;
  const body = isFinished(job.status)
    ? html`${notice('info', html`Job ${job.id} has finished (${statusBadge(job.status)}): there is nothing to cancel.`)}
<a href="${href(ctx, `/jobs/${job.id}`)}">Back to the job</a>`
    : html`${notice(
        'info',
        html`Cancel job ${job.id} (${job.queue}, ${statusBadge(job.status)})${below}? A running handler's AbortSignal fires; the job can be retried later.`,
      )}
${
  ctx.readOnly
    ? notice('info', 'Read-only dashboard: actions are turned off.')
    : html`<form method="post" action="${href(ctx, `/jobs/${job.id}/cancel`)}" id="confirm-cancel">${csrfField(ctx)}
<button type="submit" class="danger">Cancel the job</button> <a href="${href(ctx, `/jobs/${job.id}`)}">Keep it running</a></form>`
}`;
  return layout(ctx, `Cancel job ${job.id}`, '/jobs', body);
}
