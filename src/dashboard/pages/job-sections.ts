import { formatTime, formatWindow, relativeTime } from '../../admin/format.js';
import { FINISHED_STATUSES, isFinished } from '../../job-status.js';
import type { Job } from '../../model/job.js';
import type { HoldRecord } from '../../retention/holds.js';
import type { CheckpointRow, JobTokenRow, SignalRow } from '../../storage/storage.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html, jsonBlock } from '../html.js';
import { notice } from '../layout.js';

// The cards of a job page that show stored state as it is: error, checkpoints, signals, retention.

export function errorCard(job: Job): Html {
  const error = job.error!;
  return html`<div class="card"><h2>Error</h2>
<p><strong>${error.name ?? 'Error'}</strong>: ${error.message}</p>
${error.stack ? html`<pre class="stack">${error.stack}</pre>` : ''}</div>`;
}

export function checkpointTable(checkpoints: CheckpointRow[]): Html {
  if (checkpoints.length === 0) return html`<p class="muted">none</p>`;
  return html`<div class="scroll"><table><thead><tr><th title="the call's place in its run">call</th><th>name</th><th>kind</th><th>saved</th><th>output</th></tr></thead><tbody>${checkpoints.map(
    (c) =>
      html`<tr><td class="num">${c.seq === null ? '—' : String(c.seq)}</td><td class="mono">${c.name}</td><td>${c.kind}</td><td class="small">${formatTime(c.createdAt)}</td><td>${jsonBlock(c.output)}</td></tr>`,
  )}</tbody></table></div>`;
}

export function signalTable(signals: SignalRow[]): Html {
  if (signals.length === 0) return html`<p class="muted">none</p>`;
  return html`<div class="scroll"><table><thead><tr><th>name</th><th>state</th><th>received</th><th>consumed</th><th>purge after</th><th>payload</th></tr></thead><tbody>${signals.map(
    (
      s,
    ) => html`<tr><td class="mono">${s.name}</td><td><span class="status status-${s.state === 'pending' ? 'waiting' : 'completed'}">${s.state}</span></td>
<td class="small">${formatTime(s.createdAt)}</td><td class="small">${s.consumedAt ? formatTime(s.consumedAt) : '—'}${s.consumedBy ? html`<div class="muted">${s.consumedBy}</div>` : ''}</td>
<td class="small">${s.purgeAfter ? formatTime(s.purgeAfter) : s.state === 'pending' ? 'never while pending' : 'with its job'}</td><td>${jsonBlock(s.payload)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The job's callback tokens: ids, states and times; payloads stay off the page. */
export function tokenTable(tokens: JobTokenRow[]): Html {
  return html`<div class="scroll"><table id="job-tokens"><thead><tr><th>name</th><th>id</th><th>state</th><th>made</th><th>expires</th><th>settled</th></tr></thead><tbody>${tokens.map(
    (t) =>
      html`<tr><td class="mono">${t.name}</td><td class="mono small">${t.id}</td><td><span class="status status-${t.state === 'pending' ? 'waiting' : t.state}">${t.state}</span></td>
<td class="small">${formatTime(t.createdAt)}</td><td class="small">${formatTime(t.expiresAt)}</td><td class="small">${t.settledAt ? formatTime(t.settledAt) : '—'}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The holds that keep this job's tree: nothing deletes it while one stands. */
export function heldBy(ctx: DashboardContext, holds: HoldRecord[]): Html | '' {
  if (holds.length === 0) return '';
  return notice(
    'warn',
    html`<span id="job-holds">Kept by ${holds.map(
      (h, i) => html`${i > 0 ? ', ' : ''}hold <span class="mono">${h.id}</span> (${h.reason})`,
    )}</span>: no sweep, purge or delete removes this job or its tree until the hold is released on the
<a href="${href(ctx, '/retention')}">Retention</a> page.`,
  );
}

export function retention(job: Job, inTree: boolean): Html {
  const windows = job.retention;
  let due: Html;
  if (!isFinished(job.status)) due = html`In flight: never deleted (rule R1).`;
  else if (job.purgeAfter === null) due = html`Kept forever (no window for <em>${job.status}</em>).`;
  else
    due = html`Due ${formatTime(job.purgeAfter)} (${relativeTime(job.purgeAfter)})${
      inTree || job.rootId ? html`; a tree is deleted only when all its members are due (R3)` : ''
    }.`;
  return html`<p>${due}</p>
<table><thead><tr><th>frozen window</th><th>kept for</th></tr></thead><tbody>
${FINISHED_STATUSES.map((s) => html`<tr><td>${s}</td><td>${formatWindow(windows[s])}</td></tr>`)}
<tr><td>consumed signals</td><td>${windows.consumedSignals ? formatWindow(windows.consumedSignals) : 'as long as the job'}</td></tr>
<tr><td>log lines</td><td>${windows.logsAfterSeconds ? formatWindow(windows.logsAfterSeconds) : 'as long as the job'}</td></tr>
</tbody></table>
<p class="small muted">Windows were frozen onto the job when it was added; changing the queue's policy does not change them.</p>`;
}
