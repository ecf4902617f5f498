import { loadTree } from '../../admin/job-extras.js';
import type { DashboardContext } from '../context.js';
import { csrfField, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice, statusBadge } from '../layout.js';

/** The confirmation step before deleting a job or its subtree (the delete itself is a POST). */
export async function confirmDeletePage(
  ctx: DashboardContext,
  id: string,
  action: string,
): Promise<Html | null> {
  const job = await ctx.tm.getJob(id);
  if (!job) return null;
  const subtree = action === 'delete-subtree';
  const tree = subtree ? await loadTree(ctx.core, id) : [];
  const body = html`${notice(
    'info',
    subtree
      ? html`Delete job ${job.id} (${job.queue}, ${statusBadge(job.status)}) and its ${tree.length - 1} descendants, with their checkpoints and signals?`
      : html`Delete job ${job.id} (${job.queue}, ${statusBadge(job.status)}) with its checkpoints and signals?`,
  )}
${
  ctx.readOnly
    ? ''
    : html`<form method="post" action="${href(ctx, `/jobs/${job.id}/${subtree ? 'delete-subtree' : 'delete'}`)}" id="confirm-delete">${csrfField(ctx)}
<button type="submit" class="danger">Delete</button> <a href="${href(ctx, `/jobs/${job.id}`)}">Cancel</a></form>`
}`;
  return layout(
    ctx,
    subtree ? `Delete job ${job.id} and its subtree` : `Delete job ${job.id}`,
    '/jobs',
    body,
  );
}
