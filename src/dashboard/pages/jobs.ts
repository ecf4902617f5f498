import { formatTime, relativeTime } from '../../admin/format.js';
import { type JobFilter, type JobListPage, listJobs, PAGE_SIZE, parseFilter } from '../../admin/job-list.js';
import {
  type FinishedCursor,
  finishedSortProblems,
  type JobSort,
  listJobsByFinished,
  parseSort,
} from '../../admin/job-sort.js';
import { ALL_STATUSES } from '../../job-status.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice, statusBadge } from '../layout.js';
import { refreshToggle } from '../refresh.js';
import { bulkControls } from './bulk.js';

const SINCE_CHOICES: [string, string][] = [
  ['', 'any time'],
  ['900', 'last 15 min'],
  ['3600', 'last hour'],
  ['86400', 'last 24 h'],
  ['604800', 'last 7 days'],
];

const SORT_CHOICES: [JobSort, string][] = [
  ['created', 'created, newest first'],
  ['finished', 'finished, latest first'],
];

const NOTHING: JobListPage = { rows: [], next: null, newer: null, searchedDownTo: null, searchedUpTo: null };

/** A page of either order, as the list draws it. */
interface ShownPage extends JobListPage {
  /** The finished order's cursor of the next page (null at its end, and in the created order). */
  nextCursor: string | null;
}

async function readPage(
  ctx: DashboardContext,
  filter: JobFilter,
  sort: JobSort,
  cursor: FinishedCursor | null,
): Promise<ShownPage> {
  if (sort === 'created') return { ...(await listJobs(ctx.core, filter)), nextCursor: null };
  const page = await listJobsByFinished(ctx.core, filter, cursor);
  return { ...NOTHING, rows: page.rows, nextCursor: page.next };
}

/**
 * The job list: filters (queue, status, time range, text in data or error), the order
 * (created, newest first, or finished, the latest first), keyset paging, and a box that goes
 * to a job by its id. A bad filter value answers 400 with the form and what was wrong, and
 * searches nothing.
 */
export async function jobsPage(ctx: DashboardContext): Promise<Html | { status: number; page: Html }> {
  const parsed = parseFilter(ctx.url.searchParams);
  const { filter } = parsed;
  const order = parseSort(ctx.url.searchParams);
  const problems = [
    ...parsed.problems,
    ...order.problems,
    ...(order.sort === 'finished' ? finishedSortProblems(filter) : []),
  ];
  const [queues, page] = await Promise.all([
    ctx.tm.listQueues(),
    problems.length > 0 ? { ...NOTHING, nextCursor: null } : readPage(ctx, filter, order.sort, order.cursor),
  ]);
  const keep = filterQuery(ctx.url.searchParams);
  const arrow = (sort: JobSort) => (order.sort === sort ? ' ↓' : '');
  const rows = page.rows.map(
    (
      job,
    ) => html`<tr data-job-id="${job.id}">${ctx.readOnly ? '' : html`<td><input type="checkbox" name="id" value="${job.id}" aria-label="select job ${job.id}"></td>`}
<td class="num"><a href="${href(ctx, `/jobs/${job.id}`)}">${job.id}</a></td>
<td>${job.queue}</td><td>${statusBadge(job.status)}</td>
<td class="num">${job.attempts}/${job.max_attempts}</td>
<td class="small when" title="${formatTime(job.run_at)}" data-run-at="${new Date(job.run_at).toISOString()}">${relativeTime(new Date(job.run_at))}</td>
<td class="small when" title="${formatTime(job.created_at)}">${relativeTime(new Date(job.created_at))}</td>
<td class="small when" title="${job.finished_at ? formatTime(job.finished_at) : ''}">${job.finished_at ? relativeTime(new Date(job.finished_at)) : ''}</td>
<td class="mono small blob">${job.data_preview}</td>
<td class="small blob">${job.error_message ?? ''}</td></tr>`,
  );
  const body = html`${refreshToggle(ctx)}
${problems.map((p) => notice('error', p))}
${findJobForm(ctx, '')}
${filtersForm(
  ctx,
  filter,
  queues.map((q) => q.name),
)}
${ctx.readOnly ? '' : html`<form method="post" action="${href(ctx, '/jobs/bulk/preview')}" id="bulk-form">${bulkControls(ctx, filter, rows.length > 0)}`}
<div class="scroll"><table class="jobs"><thead><tr>${ctx.readOnly ? '' : html`<th></th>`}<th class="num">id</th><th>queue</th><th>status</th><th class="num">attempts</th>
<th>run at</th><th>created${arrow('created')}</th><th>finished${arrow('finished')}</th><th>data</th><th>error</th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="10" class="muted">${problems.length > 0 ? 'Nothing was searched: fix the filters above.' : 'No jobs match.'}</td></tr>`}</tbody></table></div>
${ctx.readOnly ? '' : html`</form>`}
${order.sort === 'finished' ? finishedPager(ctx, keep, page, order.cursor !== null) : createdPager(ctx, keep, filter, page)}
${page.searchedDownTo !== null ? html`<p class="small muted">The search covers a window of ids per page; it searched down to id ${String(page.searchedDownTo)}. “Older” searches further.</p>` : ''}
${page.searchedUpTo !== null ? html`<p class="small muted">The search covers a window of ids per page; it searched up to id ${String(page.searchedUpTo)}. “Newer” searches further.</p>` : ''}`;
  const text = layout(ctx, 'Jobs', '/jobs', body);
  return problems.length > 0 ? { status: 400, page: text } : text;
}

/** The box that goes straight to a job by its id (GET /jobs/find?id=…). */
export function findJobForm(ctx: DashboardContext, value: string): Html {
  return html`<form method="get" action="${href(ctx, '/jobs/find')}" class="filters find" id="job-find">
<label>go to job id<input type="text" name="id" value="${value}" inputmode="numeric" placeholder="e.g. 4217" size="14"></label>
<button type="submit">Go</button></form>`;
}

/** Pages of the created order: newest, newer and older by id. */
function createdPager(
  ctx: DashboardContext,
  keep: Record<string, string | undefined>,
  filter: JobFilter,
  page: JobListPage,
): Html {
  return html`<div class="pager">
${filter.before !== undefined || filter.after !== undefined ? html`<a href="${href(ctx, '/jobs', keep)}" rel="first">« Newest</a>` : ''}
${page.newer !== null ? html`<a href="${href(ctx, '/jobs', { ...keep, after: String(page.newer) })}" rel="prev">‹ Newer</a>` : ''}
${page.next !== null ? html`<a href="${href(ctx, '/jobs', { ...keep, before: String(page.next) })}" rel="next">Older »</a>` : ''}
<span class="small muted">${page.rows.length} shown, up to ${PAGE_SIZE} per page, newest first</span>
</div>`;
}

/** Pages of the finished order: back to the latest, and on by the cursor. */
function finishedPager(
  ctx: DashboardContext,
  keep: Record<string, string | undefined>,
  page: ShownPage,
  paged: boolean,
): Html {
  return html`<div class="pager">
${paged ? html`<a href="${href(ctx, '/jobs', keep)}" rel="first">« Latest finished</a>` : ''}
${page.nextCursor !== null ? html`<a href="${href(ctx, '/jobs', { ...keep, cursor: page.nextCursor })}" rel="next">Earlier »</a>` : ''}
<span class="small muted">${page.rows.length} shown, up to ${PAGE_SIZE} per page, the latest finished first (jobs not finished are not in this order)</span>
</div>`;
}

function filtersForm(ctx: DashboardContext, filter: JobFilter, queues: string[]): Html {
  const params = ctx.url.searchParams;
  const queueNames = filter.queue && !queues.includes(filter.queue) ? [filter.queue, ...queues] : queues;
  return html`<form method="get" action="${href(ctx, '/jobs')}" class="card filters" id="job-filters">
<label>queue<select name="queue"><option value="">all queues</option>${queueNames.map(
    (q) => html`<option value="${q}" ${q === filter.queue ? 'selected' : ''}>${q}</option>`,
  )}</select></label>
<label>status<select name="status"><option value="">all statuses</option>${ALL_STATUSES.map(
    (s) => html`<option value="${s}" ${s === filter.status ? 'selected' : ''}>${s}</option>`,
  )}</select></label>
<label>created<select name="since">${SINCE_CHOICES.map(
    ([value, label]) =>
      html`<option value="${value}" ${value === (params.get('since') ?? '') ? 'selected' : ''}>${label}</option>`,
  )}</select></label>
<label>from (UTC)<input type="datetime-local" name="from" value="${params.get('from') ?? ''}"></label>
<label>to (UTC)<input type="datetime-local" name="to" value="${params.get('to') ?? ''}"></label>
<label>text in data or error<input type="text" name="q" value="${filter.q ?? ''}" placeholder="e.g. invoice 42"></label>
<label>tag<input type="text" name="tag" value="${filter.tags?.[0] ?? ''}" placeholder="e.g. customer:42"></label>
<label>order<select name="sort">${SORT_CHOICES.map(
    ([value, label]) =>
      html`<option value="${value}" ${value === (params.get('sort') ?? 'created') ? 'selected' : ''}>${label}</option>`,
  )}</select></label>
${params.get('refresh') ? html`<input type="hidden" name="refresh" value="${params.get('refresh')}">` : ''}
<button type="submit" class="primary">Filter</button> <a href="${href(ctx, '/jobs')}">clear</a>
</form>`;
}

function filterQuery(params: URLSearchParams): Record<string, string | undefined> {
  const keep: Record<string, string | undefined> = {};
  for (const name of ['queue', 'status', 'since', 'from', 'to', 'q', 'tag', 'sort', 'refresh'])
    keep[name] = params.get(name) ?? undefined;
  return keep;
}
