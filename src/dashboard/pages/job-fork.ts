import { isFinished } from '../../job-status.js';
import type { JobDetail } from '../../jobs/job-detail.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';

/**
 * The job's lineage (the job it was forked from, the forks made of it) and, for a finished job
 * that recorded steps, the form that forks it: from its failure, or again from a step, keeping
 * what was recorded before. Empty for a job with neither.
 */
export function forkCard(ctx: DashboardContext, detail: JobDetail): Html {
  const { job, checkpoints, lineage } = detail;
  const steps = checkpoints.filter((c) => c.kind === 'step').map((c) => c.name);
  const canFork = !ctx.readOnly && isFinished(job.status) && (steps.length > 0 || job.status === 'failed');
  if (lineage.forkedFrom === null && lineage.forks.length === 0 && !canFork) return html``;
  const link = (id: string) => html`<a href="${href(ctx, `/jobs/${id}`)}">#${id}</a>`;
  return html`<div class="card" id="lineage"><h2>Lineage</h2>
${lineage.forkedFrom === null ? '' : html`<p>Forked from ${link(lineage.forkedFrom)}.</p>`}
${lineage.forks.length === 0 ? '' : html`<p>Forks: ${lineage.forks.map((id, i) => html`${i > 0 ? ', ' : ''}${link(id)}`)}.</p>`}
${
  canFork
    ? html`<form method="post" action="${href(ctx, `/jobs/${job.id}/fork`)}" class="inline">
<input type="hidden" name="csrf" value="${ctx.csrf}">
<label>Fork a new job <select name="from">
${job.status === 'failed' ? html`<option value="failure">from its failure (keep every recorded step)</option>` : ''}
${steps.map((name) => html`<option value="${`step:${name}`}">again from step ${name}</option>`)}
</select></label> <button type="submit" data-action="fork">Fork</button></form>
<p class="small muted">The fork is a new job of queue ${job.queue} with this job's data; this job stays as it is.</p>`
    : ''
}</div>`;
}
