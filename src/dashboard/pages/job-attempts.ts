import { formatTime, relativeTime } from '../../admin/format.js';
import { finiteTime, type WorkflowView } from '../../admin/workflow-wait.js';
import type { AttemptRecord } from '../../model/history.js';
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

/** Every attempt from the run history, with its outcome, error, worker and times; then what comes next. */
export function attemptList(
  ctx: DashboardContext,
  job: Job,
  attempts: AttemptRecord[],
  view: WorkflowView | null,
): Html {
  const items: Html[] = [
    html`<li>created <span class="muted small">${formatTime(job.createdAt)}</span></li>`,
  ];
  for (const a of attempts) {
    const what =
      a.outcome === 'running'
        ? html`running since ${formatTime(a.startedAt)}`
        : a.outcome === 'waiting'
          ? html`suspended: ${view ? waitInWords(ctx, view) : 'waiting'}`
          : a.outcome;
    const error = a.error ? html`: <strong>${a.error.name ?? 'Error'}</strong> ${a.error.message ?? ''}` : '';
    const worker = a.worker ? html` on <span class="mono">${a.worker}</span>` : '';
    items.push(html`<li class="${OUTCOME_CLASS[a.outcome] ?? ''}">attempt ${a.attempt} ${what}${error}
<div class="muted small">${formatTime(a.startedAt)} → ${formatTime(a.endedAt)}${worker}</div></li>`);
  }
  if (job.status === 'retry') {
    items.push(
      html`<li>next attempt ${relativeTime(job.runAt)} <span class="muted small">${formatTime(job.runAt)}</span></li>`,
    );
  } else if (job.status === 'pending') {
    items.push(html`<li>waiting to run ${relativeTime(job.runAt)}</li>`);
  } else if (job.status === 'paused') {
    items.push(html`<li>paused <span class="muted small">resume it to run</span></li>`);
  } else if (
    attempts.at(-1)?.outcome !== job.status &&
    (job.status === 'cancelled' || job.status === 'expired')
  ) {
    items.push(html`<li>${job.status} <span class="muted small">${formatTime(job.finishedAt)}</span></li>`);
  }
  return html`<ol class="timeline">${items}</ol>`;
}

const OUTCOME_CLASS: Record<string, string> = {
  completed: 'ok',
  failed: 'bad',
  stalled: 'bad',
  running: 'run',
  waiting: 'run',
};
