import { formatApprox, formatCount, formatSeconds } from '../../admin/format.js';
import { loadOverview, type QueueOverview } from '../../admin/overview.js';
import {
  COUNT_CAP,
  describeStatusCount,
  formatStatusCount,
  type StatusCount,
} from '../../admin/status-count.js';
import { ALL_STATUSES } from '../../job-status.js';
import type { LimiterInfo } from '../../model/limiter.js';
import { throughputChart } from '../chart.js';
import { actionButton, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';
import { refreshToggle } from '../refresh.js';

/**
 * Queues overview: ready (due now) and scheduled (due later) jobs, the latency, counts per
 * status, throughput over the last hour, paused state.
 */
export async function queuesPage(ctx: DashboardContext): Promise<Html> {
  const [overview, limiters] = await Promise.all([loadOverview(ctx.core), ctx.tm.listLimiters()]);
  const rows = overview.queues.map(
    (q) => html`<tr data-queue="${q.name}">
<td class="name"><a href="${href(ctx, `/queues/${encodeURIComponent(q.name)}`)}">${q.name}</a>${q.paused ? html` <span class="paused-flag">paused</span>` : ''}</td>
${dueCells(q)}
${ALL_STATUSES.map((status) => html`<td class="num">${countCell(ctx, q.name, status, q.counts[status])}</td>`)}
<td class="num">${formatCount(q.finishedLastHour)}</td>
<td>${q.paused ? actionButton(ctx, '/queues/resume', 'Resume', { queue: q.name }) : actionButton(ctx, '/queues/pause', 'Pause', { queue: q.name })}</td>
</tr>`,
  );
  const body = html`${refreshToggle(ctx)}
<div class="card chart"><h2>Throughput, last hour</h2>${throughputChart(overview.perMinute)}</div>
<div class="scroll"><table class="queues"><thead><tr><th>queue</th><th class="num">ready</th><th class="num">scheduled</th><th class="num" title="age of the oldest ready job">latency</th>${ALL_STATUSES.map((s) => html`<th class="num">${s}</th>`)}<th class="num">finished (1 h)</th><th></th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="${ALL_STATUSES.length + 6}" class="muted">No queues yet: create one with tm.createQueue.</td></tr>`}</tbody></table></div>
<p class="small muted">Ready: pending and retry jobs due now; scheduled: due later (a delay, a schedule, a
retry's backoff). Latency: how long the oldest ready job has been due, by the database's clock. Counts are exact up to ${formatCount(COUNT_CAP)} per cell. Above that a cell shows
${formatCount(COUNT_CAP)}+, or an estimate from the planner's statistics (marked ≈) when they give one above
${formatCount(COUNT_CAP)}, so this page never counts a whole table.${
    overview.estimatedJobs !== null
      ? ` The jobs table holds about ${formatApprox(overview.estimatedJobs)} rows.`
      : ''
  }</p>${limitersTable(limiters)}`;
  return layout(ctx, 'Queues', '/', body);
}

/** The rate limiters and their state, when any is defined (see flow-control.md, Rate limits). */
function limitersTable(limiters: LimiterInfo[]): Html | string {
  if (limiters.length === 0) return '';
  const rows = limiters.map(
    (l) => html`<tr data-limiter="${l.name}"><td>${l.name}</td>
<td class="num">${formatCount(l.limit)} per ${String(l.periodSeconds)} s</td><td class="num">${formatCount(l.burst)}</td>
<td class="num">${String(Number(l.spacingSeconds.toFixed(4)))} s</td><td class="num">${formatCount(l.busyBuckets)}</td>
<td class="num">${formatCount(l.waiting)}</td></tr>`,
  );
  return html`<h2>Rate limiters</h2>
<div class="scroll"><table class="limiters"><thead><tr><th>limiter</th><th class="num">limit</th><th class="num">burst</th>
<th class="num">a token every</th><th class="num">busy buckets</th><th class="num">jobs held back</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

/** Ready, scheduled and latency cells; a split read from part of a large status is marked "+". */
function dueCells(q: QueueOverview): Html {
  const cell = (name: string, count: QueueOverview['ready']) =>
    html`<td class="num" data-${name}="${count.n}" title="${count.exact ? '' : `at least ${formatCount(count.n)}: the split reads the oldest ${formatCount(COUNT_CAP)} jobs of each status`}">${count.exact ? formatCount(count.n) : `${formatCount(count.n)}+`}</td>`;
  const latency = q.latencySeconds;
  return html`${cell('ready', q.ready)}${cell('scheduled', q.scheduled)}
<td class="num" data-latency-seconds="${latency === null ? '' : Math.round(latency)}">${latency === null ? html`<span class="muted">—</span>` : formatSeconds(latency)}</td>`;
}

function countCell(
  ctx: DashboardContext,
  queue: string,
  status: string,
  count: StatusCount | undefined,
): Html {
  if (!count) return html`<span class="muted">0</span>`;
  return html`<a href="${href(ctx, '/jobs', { queue, status })}" title="${describeStatusCount(count)}" data-count="${count.kind}">${formatStatusCount(count)}</a>`;
}
