import { formatTime, formatWindow, relativeTime } from '../../admin/format.js';
import { type AttemptEntry, loadJobExtras, TREE_LIMIT, type TreeNode } from '../../admin/job-extras.js';
import { isFinished } from '../../job-status.js';
import type { HoldRecord } from '../../retention/holds.js';
import type { Job } from '../../storage/rows.js';
import type { CheckpointRow, SignalRow } from '../../storage/workflow-storage.js';
import { actionButton, type DashboardContext, href } from '../context.js';
import { type Html, html, jsonBlock } from '../html.js';
import { layout, notice, statusBadge } from '../layout.js';

const DONE_MESSAGES: Record<string, string> = {
  retry: 'Job retried: it runs again.',
  cancel: 'Job cancelled (with its in-flight descendants).',
  pause: 'Job paused.',
  resume: 'Job resumed.',
};

/** Everything about one job, with the actions its state allows. Null when it does not exist. */
export async function jobDetailPage(ctx: DashboardContext, id: string): Promise<Html | null> {
  const detail = await ctx.tm.getJobDetail(id);
  if (!detail) return null;
  const { job, checkpoints, signals, holds } = detail;
  const extras = await loadJobExtras(ctx.core, id);
  const done = DONE_MESSAGES[ctx.url.searchParams.get('done') ?? ''];
  const body = html`
${done ? notice('ok', done) : ''}
<div class="actions">${jobActions(ctx, job, extras.tree.length > 1)}</div>
<div class="grid2">
<div class="card"><h2>Job</h2>${facts(ctx, job)}</div>
<div class="card"><h2>Attempts</h2>${timeline(job, extras.attempts)}</div>
</div>
<div class="grid2">
<div class="card"><h2>Data</h2>${jsonBlock(job.data)}</div>
<div class="card"><h2>Output</h2>${job.output === null ? html`<p class="muted">none</p>` : jsonBlock(job.output)}</div>
</div>
${job.error ? errorCard(job) : ''}
<div class="card"><h2>Checkpoints (${checkpoints.length})</h2>${checkpointTable(checkpoints)}</div>
<div class="card"><h2>Signals (${signals.length})</h2>${signalTable(signals)}</div>
<div class="card"><h2>Children</h2>${treeView(ctx, extras.tree, job.id)}</div>
<div class="card"><h2>Retention</h2>${heldBy(ctx, holds)}${retention(job, extras.tree.length > 1)}</div>`;
  return layout(ctx, `Job ${job.id}`, '/jobs', body);
}

function jobActions(ctx: DashboardContext, job: Job, hasChildren: boolean): Html {
  if (ctx.readOnly)
    return html`<span class="small muted">Read-only dashboard: actions are turned off.</span>`;
  const path = (action: string) => `/jobs/${job.id}/${action}`;
  const finished = isFinished(job.status);
  return html`${finished || job.status === 'retry' ? actionButton(ctx, path('retry'), 'Retry') : ''}
${!finished ? html`<a class="button danger" href="${href(ctx, path('confirm'), { action: 'cancel' })}" data-action="cancel">Cancel…</a>` : ''}
${['pending', 'retry', 'waiting'].includes(job.status) ? actionButton(ctx, path('pause'), 'Pause') : ''}
${job.status === 'paused' ? actionButton(ctx, path('resume'), 'Resume') : ''}
${finished && !hasChildren ? html`<a class="button danger" href="${href(ctx, path('confirm'), { action: 'delete' })}">Delete…</a>` : ''}
${finished ? html`<a class="button danger" href="${href(ctx, path('confirm'), { action: 'delete-subtree' })}">Delete with subtree…</a>` : ''}`;
}

function facts(ctx: DashboardContext, job: Job): Html {
  const stalled =
    job.status === 'active' && job.lockedUntil !== null && job.lockedUntil.getTime() < Date.now();
  return html`<dl class="facts">
<dt>status</dt><dd>${statusBadge(job.status)}${stalled ? html` <strong>stalled</strong> (lock lapsed)` : ''}</dd>
<dt>queue</dt><dd><a href="${href(ctx, '/jobs', { queue: job.queue })}">${job.queue}</a></dd>
<dt>attempts</dt><dd>${job.attempts} of ${job.maxAttempts}</dd>
<dt>priority</dt><dd>${job.priority}</dd>
<dt>created</dt><dd>${formatTime(job.createdAt)}</dd>
<dt>run at</dt><dd>${formatTime(job.runAt)} <span class="muted small">${relativeTime(job.runAt)}</span></dd>
<dt>started</dt><dd>${formatTime(job.startedAt)}</dd>
<dt>finished</dt><dd>${formatTime(job.finishedAt)}</dd>
${job.expireAt ? html`<dt>expires</dt><dd>${formatTime(job.expireAt)}</dd>` : ''}
${job.parentId ? html`<dt>parent</dt><dd><a href="${href(ctx, `/jobs/${job.parentId}`)}">${job.parentId}</a></dd>` : ''}
${job.rootId && job.rootId !== job.parentId ? html`<dt>root</dt><dd><a href="${href(ctx, `/jobs/${job.rootId}`)}">${job.rootId}</a></dd>` : ''}
${job.lockedBy ? html`<dt>worker</dt><dd class="mono">${job.lockedBy}</dd><dt>lock until</dt><dd>${formatTime(job.lockedUntil)}</dd>` : ''}
</dl>`;
}

function timeline(job: Job, log: AttemptEntry[]): Html {
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
        html`<li class="run">attempt ${job.attempts} suspended (sleep, signal or child); wakes by ${formatTime(job.runAt)}</li>`,
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

function errorCard(job: Job): Html {
  const error = job.error!;
  return html`<div class="card"><h2>Error</h2>
<p><strong>${error.name ?? 'Error'}</strong>: ${error.message}</p>
${error.stack ? html`<pre class="stack">${error.stack}</pre>` : ''}</div>`;
}

function checkpointTable(checkpoints: CheckpointRow[]): Html {
  if (checkpoints.length === 0) return html`<p class="muted">none</p>`;
  return html`<table><thead><tr><th>name</th><th>kind</th><th>saved</th><th>output</th></tr></thead><tbody>${checkpoints.map(
    (c) =>
      html`<tr><td class="mono">${c.name}</td><td>${c.kind}</td><td class="small">${formatTime(c.createdAt)}</td><td>${jsonBlock(c.output)}</td></tr>`,
  )}</tbody></table>`;
}

function signalTable(signals: SignalRow[]): Html {
  if (signals.length === 0) return html`<p class="muted">none</p>`;
  return html`<table><thead><tr><th>name</th><th>state</th><th>received</th><th>consumed</th><th>purge after</th><th>payload</th></tr></thead><tbody>${signals.map(
    (
      s,
    ) => html`<tr><td class="mono">${s.name}</td><td><span class="status status-${s.state === 'pending' ? 'waiting' : 'completed'}">${s.state}</span></td>
<td class="small">${formatTime(s.createdAt)}</td><td class="small">${s.consumedAt ? formatTime(s.consumedAt) : '—'}${s.consumedBy ? html`<div class="muted">${s.consumedBy}</div>` : ''}</td>
<td class="small">${s.purgeAfter ? formatTime(s.purgeAfter) : s.state === 'pending' ? 'never while pending' : 'with its job'}</td><td>${jsonBlock(s.payload)}</td></tr>`,
  )}</tbody></table>`;
}

function treeView(ctx: DashboardContext, tree: TreeNode[], selfId: string): Html {
  const nodes = tree.filter((n) => n.id !== selfId);
  if (nodes.length === 0) return html`<p class="muted">none</p>`;
  const shown = nodes.slice(0, TREE_LIMIT);
  // The rows arrive depth-first, so nesting is a matter of opening and closing lists.
  const items = shown.map(
    (n) =>
      html`<li data-depth="${n.depth}">${'— '.repeat(Math.max(n.depth - 1, 0))}<a href="${href(ctx, `/jobs/${n.id}`)}">${n.id}</a> ${n.queue} ${statusBadge(n.status)}</li>`,
  );
  return html`<ul class="tree">${items}</ul>${nodes.length > TREE_LIMIT ? html`<p class="small muted">Only the first ${TREE_LIMIT} descendants are shown.</p>` : ''}`;
}

/** The holds that keep this job's tree: nothing deletes it while one stands. */
function heldBy(ctx: DashboardContext, holds: HoldRecord[]): Html | '' {
  if (holds.length === 0) return '';
  return notice(
    'warn',
    html`<span id="job-holds">Kept by ${holds.map(
      (h, i) => html`${i > 0 ? ', ' : ''}hold <span class="mono">${h.id}</span> (${h.reason})`,
    )}</span>: no sweep, purge or delete removes this job or its tree until the hold is released on the
<a href="${href(ctx, '/retention')}">Retention</a> page.`,
  );
}

function retention(job: Job, inTree: boolean): Html {
  const windows = job.retention;
  const statuses = ['completed', 'failed', 'cancelled', 'expired'] as const;
  let due: Html;
  if (!isFinished(job.status)) due = html`In flight: never deleted (rule R1).`;
  else if (job.purgeAfter === null) due = html`Kept forever (no window for <em>${job.status}</em>).`;
  else
    due = html`Due ${formatTime(job.purgeAfter)} (${relativeTime(job.purgeAfter)})${
      inTree || job.rootId ? html`; a tree is deleted only when all its members are due (R3)` : ''
    }.`;
  return html`<p>${due}</p>
<table><thead><tr><th>frozen window</th><th>kept for</th></tr></thead><tbody>
${statuses.map((s) => html`<tr><td>${s}</td><td>${formatWindow(windows[s])}</td></tr>`)}
<tr><td>consumed signals</td><td>${windows.consumedSignals ? formatWindow(windows.consumedSignals) : 'as long as the job'}</td></tr>
</tbody></table>
<p class="small muted">Windows were frozen onto the job when it was added; changing the queue's policy does not change them.</p>`;
}
