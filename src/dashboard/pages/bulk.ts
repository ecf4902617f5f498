import { formatCount, formatTime } from '../../admin/format.js';
import type { JobFilter } from '../../admin/job-list.js';
import { isJobStatus } from '../../job-status.js';
import type {
  BulkJobFilter,
  BulkOutcome,
  BulkRefusalReason,
  StateActionName,
} from '../../jobs/bulk-actions.js';
import { ACTIONABLE } from '../../jobs/bulk-filter.js';
import { keysOf } from '../../model/guards.js';
import { csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice } from '../layout.js';

/** A bulk request as the forms carry it: the filter (or the chosen ids) and the action. */
export interface BulkRequest {
  action: StateActionName;
  filter: BulkJobFilter;
}

const VERB: Record<StateActionName, { label: string; past: string }> = {
  retry: { label: 'Retry', past: 'Retried' },
  cancel: { label: 'Cancel', past: 'Cancelled' },
  'run-now': { label: 'Run now', past: 'Made due now' },
};

const REASONS: Record<BulkRefusalReason, string> = {
  changed: 'changed after it was chosen and no longer matched (finished, started or retried meanwhile)',
  'not-retryable': 'not in a state that can be retried',
  'unique-key-conflict': 'its unique key is held by another job in flight',
  'not-in-flight': 'had already finished',
  'not-waiting': 'not pending or retry-waiting any more',
  'not-found': 'deleted meanwhile',
  'not-failed': 'not failed: only a failed job is forked from its failure',
  'no-fork-point': 'recorded no such step to fork from',
};

/**
 * The buttons above the job list: act on every job matching the filter (given a status the
 * action can change) or on the ticked rows. Each leads to a confirmation page with a dry-run
 * count; nothing changes from here. The job list leaves them out on a read-only dashboard.
 */
export function bulkControls(ctx: DashboardContext, filter: JobFilter, hasRows: boolean): Html {
  if (!hasRows) return html``;
  // The list's filter holds a known status or none.
  const status = isJobStatus(filter.status) ? filter.status : undefined;
  const matching = (action: StateActionName) =>
    status !== undefined && ACTIONABLE[action].includes(status)
      ? html`<button type="submit" name="do" value="${action}-matching" class="danger">${VERB[action].label} all matching…</button> `
      : '';
  const params = ctx.url.searchParams;
  return html`${csrfField(ctx)}${['queue', 'status', 'since', 'from', 'to', 'q', 'tag'].map((name) =>
    params.get(name) ? html`<input type="hidden" name="${name}" value="${params.get(name)}">` : '',
  )}<div class="actions bulk">${matching('retry')}${matching('cancel')}${matching('run-now')}
<button type="submit" name="do" value="retry-selected">Retry selected…</button>
<button type="submit" name="do" value="cancel-selected">Cancel selected…</button>
<button type="submit" name="do" value="run-now-selected">Run selected now…</button>
${status === undefined ? html`<span class="small muted">Filter by a status to act on every matching job.</span>` : ''}</div>`;
}

/**
 * Step 2: the dry-run count, and a form that repeats the request with confirm=yes, the count
 * and the highest id counted, so the confirmation acts on the jobs counted and no others.
 */
export function bulkConfirmPage(
  ctx: DashboardContext,
  request: BulkRequest,
  counted: BulkOutcome,
  warning?: string,
): Html {
  const verb = VERB[request.action];
  const what = describe(request.filter);
  const matched = counted.matched;
  const body =
    matched === 0
      ? html`${notice('info', html`No job matches (${what}): nothing to ${request.action}.`)}<a href="${href(ctx, '/jobs')}">Back to jobs</a>`
      : html`${notice(
          'info',
          html`Dry run: <strong id="bulk-count">${formatCount(matched)}</strong> jobs match (${what}).
${verb.label} them? Each goes through the same checks as on its own page; a job that cannot be changed is reported, not forced.`,
        )}
<form method="post" action="${href(ctx, '/jobs/bulk/confirm')}" id="bulk-confirm">${csrfField(ctx)}
<input type="hidden" name="do" value="${request.action}-${request.filter.ids ? 'selected' : 'matching'}">
${filterFields(request.filter)}<input type="hidden" name="matched" value="${String(matched)}">
<input type="hidden" name="through" value="${counted.throughId}"><input type="hidden" name="confirm" value="yes">
<button type="submit" class="danger">${verb.label} ${formatCount(matched)} jobs</button> <a href="${href(ctx, '/jobs')}">Back</a></form>`;
  return layout(
    ctx,
    `${verb.label} jobs: confirm`,
    '/jobs',
    warning === undefined
      ? body
      : html`${notice('warn', html`<span id="bulk-grew">${warning}</span>`)}${body}`,
  );
}

/** Step 3: what was done, and what was refused and why. */
export function bulkDonePage(ctx: DashboardContext, request: BulkRequest, outcome: BulkOutcome): Html {
  const verb = VERB[request.action];
  const refused = keysOf(outcome.refused);
  const body = html`${notice(
    refused.length > 0 ? 'warn' : 'ok',
    html`${verb.past} <strong id="bulk-done">${formatCount(outcome.done)}</strong> of ${formatCount(outcome.matched)} matching jobs (${describe(request.filter)}), in ${outcome.batches} batches.`,
  )}
${
  refused.length === 0
    ? ''
    : html`<div class="card" id="bulk-refused"><h2>Left as they were</h2><ul>${refused.map(
        (reason) =>
          html`<li><strong>${formatCount(outcome.refused[reason] ?? 0)}</strong> ${REASONS[reason]} (<span class="mono">${reason}</span>)</li>`,
      )}</ul><table><thead><tr><th>job</th><th>reason</th><th>message</th></tr></thead><tbody>${outcome.refusals.map(
        (r) =>
          html`<tr><td><a href="${href(ctx, `/jobs/${r.id}`)}">${r.id}</a></td><td class="mono">${r.reason}</td><td class="small">${r.message}</td></tr>`,
      )}</tbody></table></div>`
}
<a href="${href(ctx, '/jobs', listQuery(request.filter))}">Back to jobs</a>`;
  return layout(ctx, `${verb.label} jobs: done`, '/jobs', body);
}

function filterFields(filter: BulkJobFilter): Html {
  const fields: Html[] = Object.entries(listQuery(filter)).map(([name, value]) =>
    value === undefined ? html`` : html`<input type="hidden" name="${name}" value="${value}">`,
  );
  for (const id of filter.ids ?? []) fields.push(html`<input type="hidden" name="id" value="${id}">`);
  return html`${fields}`;
}

/** The filter as the job list's query string (ids are not part of it). */
function listQuery(filter: BulkJobFilter): Record<string, string | undefined> {
  const date = (value: Date | string | undefined) =>
    value === undefined ? undefined : new Date(value).toISOString();
  return {
    queue: filter.queue,
    status: filter.status,
    since: filter.since === undefined ? undefined : String(filter.since),
    from: date(filter.from),
    to: date(filter.to),
    q: filter.q,
  };
}

function describe(filter: BulkJobFilter): string {
  const parts: string[] = [];
  if (filter.ids) parts.push(`${filter.ids.length} chosen jobs`);
  if (filter.status) parts.push(`status ${filter.status}`);
  parts.push(filter.queue ? `queue ${filter.queue}` : 'all queues');
  if (filter.from) parts.push(`created from ${formatTime(new Date(filter.from))}`);
  if (filter.to) parts.push(`created before ${formatTime(new Date(filter.to))}`);
  if (filter.q) parts.push(`“${filter.q}” in the data or the error`);
  if (filter.tags) parts.push(`tagged ${filter.tags.join(', ')}`);
  return parts.join(', ');
}
