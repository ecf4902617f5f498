import { formatTime, relativeTime } from '../../admin/format.js';
import type { AttemptEntry } from '../../admin/job-extras.js';
import { finiteTime, type WorkflowView } from '../../admin/workflow-wait.js';
import type { Job } from '../../model/job.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { statusBadge } from '../layout.js';
import { waitInWords } from './workflow-wait.js';

/** The job's facts; a parked workflow says what it waits for instead of a run time. */
export function facts(ctx: DashboardContext, job: Job, view: WorkflowView | null): Html {
  const stalled =
    job.status === 'active' && job.lockedUntil !== null && job.lockedUntil.getTime() < Date.now();
  const runAt = finiteTime(job.runAt);
  return html`<dl class="facts">
<dt>status</dt><dd><span id="live-status">${statusBadge(job.status)}</span>${stalled ? html` <strong>stalled</strong> (lock lapsed)` : ''}</dd>
<dt>queue</dt><dd><a href="${href(ctx, '/jobs', { queue: job.queue })}">${job.queue}</a></dd>
<dt>attempts</dt><dd>${job.attempts} of ${job.maxAttempts}</dd>
<dt>priority</dt><dd>${job.priority}</dd>
<dt>created</dt><dd>${formatTime(job.createdAt)}</dd>
${
  view?.wait
    ? html`<dt>waits for</dt><dd>${waitInWords(ctx, view)}</dd>`
    : html`<dt>run at</dt><dd>${runAt ? html`${formatTime(runAt)} <span class="muted small">${relativeTime(runAt)}</span>` : 'no timer'}</dd>`
}
<dt>started</dt><dd>${formatTime(job.startedAt)}</dd>
<dt>finished</dt><dd>${formatTime(job.finishedAt)}</dd>
${job.expireAt ? html`<dt>expires</dt><dd>${formatTime(job.expireAt)}</dd>` : ''}
${job.parentId ? html`<dt>parent</dt><dd><a href="${href(ctx, `/jobs/${job.parentId}`)}">${job.parentId}</a></dd>` : ''}
${job.rootId && job.rootId !== job.parentId ? html`<dt>root</dt><dd><a href="${href(ctx, `/jobs/${job.rootId}`)}">${job.rootId}</a></dd>` : ''}
${job.trace ? html`<dt>trace</dt><dd>${traceLink(ctx, job.trace.traceparent)}</dd>` : ''}
${job.lockedBy ? html`<dt>worker</dt><dd class="mono">${job.lockedBy}</dd><dt>lock until</dt><dd>${formatTime(job.lockedUntil)}</dd>` : ''}
</dl>`;
}

/** The trace id of the span the job was added in, linked when the dashboard has a template. */
function traceLink(ctx: DashboardContext, traceparent: string): Html {
  const traceId = traceparent.split('-')[1] ?? '';
  if (ctx.traceUrl === undefined) return html`<span class="mono" id="trace-id">${traceId}</span>`;
  const url = ctx.traceUrl.replaceAll('{traceId}', encodeURIComponent(traceId));
  return html`<a class="mono" id="trace-id" href="${url}" rel="noreferrer">${traceId}</a>`;
}

/** Every failed attempt with its error and times, then the current or final one. */
export function attemptList(
  ctx: DashboardContext,
  job: Job,
  log: AttemptEntry[],
  view: WorkflowView | null,
): Html {
  const items: Html[] = [
    html`<li>created <span class="muted small">${formatTime(job.createdAt)}</span></li>`,
  ];
  for (const entry of log) {
    items.push(html`<li class="bad">attempt ${entry.attempt} failed: <strong>${entry.name ?? 'Error'}</strong> ${entry.message ?? ''}
<div class="muted small">${formatTime(entry.startedAt)} → ${formatTime(entry.endedAt)}</div></li>`);
  }
  const loggedLast = log.length > 0 && log[log.length - 1].attempt === job.attempts;
  const span = html`<div class="muted small">${formatTime(job.startedAt)} → ${formatTime(job.finishedAt)}</div>`;
  switch (job.status) {
    case 'completed':
      items.push(html`<li class="ok">attempt ${job.attempts} completed${span}</li>`);
      break;
    case 'active':
      items.push(
        html`<li class="run">attempt ${job.attempts} running since ${formatTime(job.startedAt)}</li>`,
      );
      break;
    case 'failed':
      if (!loggedLast) items.push(html`<li class="bad">attempt ${job.attempts} failed${span}</li>`);
      break;
    case 'retry':
      items.push(
        html`<li>next attempt ${relativeTime(job.runAt)} <span class="muted small">${formatTime(job.runAt)}</span></li>`,
      );
      break;
    case 'waiting':
      items.push(
        html`<li class="run">attempt ${job.attempts} suspended: ${view ? waitInWords(ctx, view) : 'waiting'}</li>`,
      );
      break;
    case 'pending':
      items.push(html`<li>waiting to run ${relativeTime(job.runAt)}</li>`);
      break;
    default:
      items.push(html`<li>${job.status} <span class="muted small">${formatTime(job.finishedAt)}</span></li>`);
  }
  return html`<ol class="timeline">${items}</ol>`;
}
