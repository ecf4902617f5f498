import { formatCount, formatTime } from '../../admin/format.js';
import { AUDIT_ACTIONS, type AuditRecord, type AuditTarget } from '../../model/audit.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';

const PAGE_SIZE = 50;
const FILTERS = ['action', 'actor', 'since', 'until'] as const;

/**
 * The audit of operator actions, newest first: who did what, from where, to what, and how many
 * rows it changed. Filters by action, actor and time range (an ISO time, read as UTC without a
 * zone); pages by keyset (`after`, the last id shown). A bad filter is refused by
 * `tm.listAudit` with an error naming the field, shown as a 400 page.
 */
export async function auditPage(ctx: DashboardContext): Promise<Html> {
  const params = ctx.url.searchParams;
  const keep: Record<string, string | undefined> = {};
  for (const name of FILTERS) keep[name] = params.get(name)?.trim() || undefined;
  const after = params.get('after') || undefined;
  const rows = await ctx.tm.listAudit({
    ...(keep.action ? { action: keep.action as AuditRecord['action'] } : {}),
    ...(keep.actor ? { actor: keep.actor } : {}),
    ...(keep.since ? { since: asUtc(keep.since) } : {}),
    ...(keep.until ? { until: asUtc(keep.until) } : {}),
    ...(after ? { after } : {}),
    limit: PAGE_SIZE,
  });
  const last = rows.at(-1);
  const body = html`${filtersForm(ctx, keep)}
<div class="scroll"><table class="audit"><thead><tr><th>when</th><th>actor</th><th>from</th><th>action</th><th>target</th><th class="num">rows</th></tr></thead>
<tbody>${
    rows.length > 0
      ? rows.map((r) => row(ctx, r))
      : html`<tr><td colspan="6" class="muted">No recorded action matches.</td></tr>`
  }</tbody></table></div>
<div class="pager">
${after ? html`<a href="${href(ctx, '/audit', keep)}" rel="first">« Newest</a>` : ''}
${rows.length === PAGE_SIZE && last ? html`<a href="${href(ctx, '/audit', { ...keep, after: last.id })}" rel="next">Older »</a>` : ''}
<span class="small muted">${formatCount(rows.length)} shown, up to ${PAGE_SIZE} per page, newest first</span>
</div>
<p class="small muted">Every retry, cancel, delete, purge, hold, pause, resume, run-now, schedule and key control
from this dashboard, the CLI or the API is recorded here with who acted: the name of the dashboard token
used (<code>tokens</code>), the CLI's OS user or <code>--actor</code>, or the API call's <code>actor</code>.
Rows older than the audit's window (<code>audit.retainDays</code>) are deleted by the retention pass.</p>`;
  return layout(ctx, 'Audit', '/audit', body);
}

/** A time typed without a zone (as a datetime-local field gives it) is read as UTC, as the page shows times. */
function asUtc(text: string): string {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text;
}

function filtersForm(ctx: DashboardContext, keep: Record<string, string | undefined>): Html {
  return html`<form method="get" action="${href(ctx, '/audit')}" class="card filters" id="audit-filters">
<label>action<select name="action"><option value="">all actions</option>${AUDIT_ACTIONS.map(
    (a) => html`<option value="${a}" ${a === keep.action ? 'selected' : ''}>${a}</option>`,
  )}</select></label>
<label>actor<input type="text" name="actor" value="${keep.actor ?? ''}" placeholder="e.g. alice"></label>
<label>since (UTC)<input type="text" name="since" value="${keep.since ?? ''}" placeholder="2026-01-31T09:00"></label>
<label>until (UTC)<input type="text" name="until" value="${keep.until ?? ''}" placeholder="2026-01-31T18:00"></label>
<button type="submit" class="primary">Filter</button> <a href="${href(ctx, '/audit')}">clear</a>
</form>`;
}

/** A filter's JSON up to FILTER_CHARS characters: a hold or a bulk action may name a thousand ids. */
const FILTER_CHARS = 300;

function shortened(text: string): string {
  return text.length > FILTER_CHARS ? `${text.slice(0, FILTER_CHARS)}…` : text;
}

function row(ctx: DashboardContext, r: AuditRecord): Html {
  return html`<tr data-audit="${r.id}"><td class="small">${formatTime(r.at)}</td><td>${r.actor}</td>
<td class="small">${r.source}</td><td><span class="mono">${r.action}</span></td>
<td class="small">${target(ctx, r.target)}</td><td class="num">${formatCount(r.rows)}</td></tr>`;
}

function target(ctx: DashboardContext, t: AuditTarget): Html {
  const parts: Html[] = [];
  if (t.jobId) parts.push(html`job <a href="${href(ctx, `/jobs/${t.jobId}`)}">${t.jobId}</a>`);
  if (t.queue) parts.push(html`queue ${t.queue}`);
  if (t.schedule) parts.push(html`schedule ${t.schedule}`);
  if (t.key) parts.push(html`key ${t.key}`);
  if (t.holdId) parts.push(html`hold ${t.holdId}`);
  if (t.detail) parts.push(html`<span class="muted">${t.detail}</span>`);
  if (t.filter) parts.push(html`<span class="mono">${shortened(JSON.stringify(t.filter))}</span>`);
  return parts.length > 0
    ? html`${parts.map((p, i) => (i === 0 ? p : html`, ${p}`))}`
    : html`<span class="muted">—</span>`;
}
