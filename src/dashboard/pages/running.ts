import { formatCount, formatSeconds, formatTime } from '../../admin/format.js';
import { loadRunning, RUNNING_SHOWN, type RunningJob } from '../../admin/running.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';

/** The jobs running now across the cluster, longest first: where, since when, and whether their lock holds. */
export async function runningPage(ctx: DashboardContext): Promise<Html> {
  const jobs = await loadRunning(ctx.core);
  const stalled = jobs.filter((job) => job.stalled).length;
  const body = html`<p>${formatCount(jobs.length)}${jobs.length === RUNNING_SHOWN ? '+' : ''} running${stalled > 0 ? html`, <strong>${formatCount(stalled)} stalled</strong>` : ''}.</p>
<table class="running"><thead><tr><th>job</th><th>queue</th><th>key</th><th class="num">attempt</th><th>started</th>
<th class="num">elapsed</th><th>worker</th><th>lock until</th></tr></thead><tbody>
${jobs.length === 0 ? html`<tr><td colspan="8" class="muted">Nothing is running.</td></tr>` : jobs.map((job) => row(ctx, job))}
</tbody></table>
<p class="small muted">Longest running first, by the database's clock. A worker extends its lock every third of
its lock period while the handler runs; a lock that lapsed (stalled) means the worker stopped beating, and the
maintenance tick gives the job back to be run again.</p>`;
  return layout(ctx, 'Running now', '/running', body);
}

function row(ctx: DashboardContext, job: RunningJob): Html {
  return html`<tr data-job="${job.id}"><td><a href="${href(ctx, `/jobs/${job.id}`)}">${job.id}</a></td>
<td><a href="${href(ctx, '/jobs', { queue: job.queue })}">${job.queue}</a></td><td class="mono small">${job.key ?? ''}</td>
<td class="num">${job.attempt}</td><td class="small">${formatTime(job.startedAt)}</td>
<td class="num">${job.elapsedMs === null ? '' : formatSeconds(job.elapsedMs / 1000)}</td>
<td class="mono small">${job.worker ?? ''}</td>
<td class="small">${formatTime(job.lockedUntil)}${job.stalled ? html` <span class="status status-failed">stalled</span>` : ''}</td></tr>`;
}
