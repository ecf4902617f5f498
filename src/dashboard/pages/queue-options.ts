import { formatCount, formatSeconds, formatWindow } from '../../admin/format.js';
import type { QueueSummary } from '../../admin/queue-summary.js';
import { formatStatusCount, type StatusCount } from '../../admin/status-count.js';
import { ALL_STATUSES } from '../../job-status.js';
import type { LimiterInfo } from '../../model/limiter.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { windowsText } from './apply-retention.js';

/** The counts of the queue page: ready, scheduled and latency, then one per status. */
export function queueCounts(ctx: DashboardContext, q: QueueSummary): Html {
  const split = (count: StatusCount) => (count.exact ? formatCount(count.n) : `${formatCount(count.n)}+`);
  const figure = (what: string, value: string, data: string, link?: string) =>
    html`<li data-figure="${data}"><span class="n">${link === undefined ? value : html`<a href="${link}">${value}</a>`}</span><span class="what">${what}</span></li>`;
  const jobs = (status: string) => href(ctx, '/jobs', { queue: q.name, status });
  return html`<ul class="counts-row card" id="queue-counts">
${figure('ready', split(q.ready), 'ready')}
${figure('scheduled', split(q.scheduled), 'scheduled')}
${figure('latency', q.latencySeconds === null ? '—' : formatSeconds(q.latencySeconds), 'latency')}
${ALL_STATUSES.map((status) => {
  const count = q.counts[status];
  return figure(status, count ? formatStatusCount(count) : '0', status, count ? jobs(status) : undefined);
})}
</ul>`;
}

/**
 * What the queue's definition stored: attempts, backoff, timeout, concurrency, the
 * flow-control rules (keys, global limit, rate limiters with their state now) and retention.
 */
export function queueOptions(ctx: DashboardContext, q: QueueSummary, limiters: LimiterInfo[]): Html {
  const o = q.options;
  const row = (name: string, value: Html | string) =>
    html`<dt>${name}</dt><dd data-option="${name}">${value}</dd>`;
  const backoff = o.backoff
    ? `${formatSeconds(o.backoff.delaySeconds)} × ${o.backoff.factor} per attempt, at most ${formatSeconds(o.backoff.maxDelaySeconds)}${o.backoff.jitter ? ', with jitter' : ', exact'}`
    : 'the engine default';
  const keys = o.keys
    ? `${formatCount(o.keys.concurrency)} at once per key, ${o.keys.order === 'fifo' ? 'first in first out' : 'by priority'}${o.keys.fair ? ', fair between keys' : ''}${tiersText(o.keys.tiers)}`
    : 'none';
  const used = new Map(limiters.map((l) => [l.name, l]));
  const limiterRows = (o.limiters ?? []).map((l) => {
    const info = used.get(l.name);
    const state = info
      ? `${formatCount(info.limit)} per ${formatSeconds(info.periodSeconds)}, burst ${formatCount(info.burst)}; ${formatCount(info.waiting)} held back now`
      : 'not defined yet';
    return html`<li>${l.name}${l.keyed ? ' (by key)' : ''}${l.costed ? ' (with cost)' : ''}: ${state}</li>`;
  });
  return html`<div class="card" id="queue-options"><h2>Options</h2><dl class="facts options">
${row('max attempts', o.maxAttempts === undefined ? 'the engine default' : formatCount(o.maxAttempts))}
${row('backoff', backoff)}
${row('timeout', o.timeoutSeconds === undefined ? 'none' : formatSeconds(o.timeoutSeconds))}
${row('concurrency per worker', o.concurrency === undefined ? 'the worker’s' : formatCount(o.concurrency))}
${row('global concurrency', o.globalConcurrency === undefined ? 'no limit' : formatCount(o.globalConcurrency))}
${row('concurrency keys', o.keys ? html`${keys} (<a href="${href(ctx, `/queues/${encodeURIComponent(q.name)}/keys`)}">keys</a>)` : keys)}
${row('rate limiters', limiterRows.length > 0 ? html`<ul class="plain">${limiterRows}</ul>` : 'none')}
${row(`retention (${q.retention.source})`, windowsText(q.retention.windows))}
${row('log lines', q.retention.windows.logsAfterSeconds ? formatWindow(q.retention.windows.logsAfterSeconds) : 'kept with the job')}
</dl>
<p class="small muted">As stored by the process that last defined the queue (tm.createQueue); a worker runs
with its own definition of the queue when it has one.</p></div>`;
}

function tiersText(tiers: Record<string, number>): string {
  const entries = Object.entries(tiers);
  if (entries.length === 0) return '';
  return `; tiers ${entries.map(([tier, n]) => `${tier} ${formatCount(n)}`).join(', ')}`;
}
