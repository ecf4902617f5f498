import { formatCount, formatTime } from '../../admin/format.js';
import type { HoldRecord } from '../../retention/holds.js';
import { actionButton, csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';

/** The cluster-wide switch: its state, and the form that flips it. */
export function pauseCard(ctx: DashboardContext): Html {
  const { retention } = ctx;
  const state = retention.paused
    ? html`<p><strong>Paused</strong> since ${formatTime(retention.since)}${retention.pausedBy ? html` by <span class="mono">${retention.pausedBy}</span>` : ''}: ${retention.reason ?? ''}</p>
<p class="small muted">No sweep on any node deletes anything, and purges are refused. Deleting one job by hand still works.</p>`
    : html`<p>Running: workers delete due rows by their frozen windows.</p>
<p class="small muted">Pausing stops every sweep on every node, and every purge, until resumed; it waits for a batch in progress to finish.</p>`;
  let form: Html | '' = '';
  if (!ctx.readOnly) {
    form = retention.paused
      ? actionButton(ctx, '/retention/resume', 'Resume retention')
      : html`<form method="post" action="${href(ctx, '/retention/pause')}" class="filters" id="pause-retention">${csrfField(ctx)}
<label>reason<input type="text" name="reason" required maxlength="500" placeholder="why nothing may be deleted"></label>
<button type="submit" class="danger">Pause retention</button></form>`;
  }
  return html`<div class="card" id="retention-switch"><h2>Cluster-wide switch</h2>${state}${form}</div>`;
}

/** Holds in place, with a release button each, and a form to place one. */
export function holdsCard(ctx: DashboardContext, holds: HoldRecord[], queues: string[]): Html {
  const table =
    holds.length === 0
      ? html`<p class="muted">No holds. A hold keeps chosen jobs, and their trees, through every sweep and purge.</p>`
      : html`<div class="scroll"><table id="holds"><thead><tr><th>hold</th><th>reason</th><th>covers</th><th class="num">jobs</th><th>placed</th><th></th></tr></thead><tbody>
${holds.map(
  (
    h,
  ) => html`<tr><td class="mono">${h.id}</td><td>${h.reason}</td><td>${h.queue ? html`queue ${h.queue} (now and later)` : 'named jobs and their trees'}</td>
<td class="num">${formatCount(h.jobs)}</td><td class="small">${formatTime(h.createdAt)}${h.createdBy ? html`<div class="muted">${h.createdBy}</div>` : ''}</td>
<td>${actionButton(ctx, '/retention/holds/release', 'Release', { hold: h.id }, 'danger')}</td></tr>`,
)}</tbody></table></div>`;
  const form = ctx.readOnly
    ? ''
    : html`<form method="post" action="${href(ctx, '/retention/holds')}" class="filters" id="place-hold">${csrfField(ctx)}
<label>queue<select name="queue"><option value="">no queue</option>${queues.map((q) => html`<option value="${q}">${q}</option>`)}</select></label>
<label>or job ids<input type="text" name="ids" placeholder="12, 15, 40"></label>
<label>reason<input type="text" name="reason" required maxlength="500" placeholder="audit, incident, legal hold"></label>
<button type="submit">Place hold</button></form>`;
  return html`<div class="card"><h2>Holds</h2>${table}${form}</div>`;
}
