import { formatCount } from '../../admin/format.js';
import {
  CHART_MAX_ROWS,
  CHART_WINDOW_NAMES,
  CHART_WINDOWS,
  type ChartWindow,
  loadQueueCharts,
  parseChartWindow,
  type QueueCharts,
} from '../../admin/queue-charts.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';
import { refreshToggle } from '../refresh.js';
import { barSeries, formatWait, type TimeAxis, waitSeries } from '../series-chart.js';

/** One bar chart of the page: jobs that finished completed (or failed) per bucket. */
function countCard(charts: QueueCharts, status: 'completed' | 'failed', color: string, axis: TimeAxis): Html {
  const shape = CHART_WINDOWS[charts.window];
  const title = `${status === 'completed' ? 'Completed' : 'Failed'} per ${shape.bucketLabel}, ${shape.label}`;
  const label = `Jobs ${status} per ${shape.bucketLabel} over ${shape.label}: ${charts.total[status]} in all`;
  return html`<div class="card chart" id="chart-${status}"><h2>${title}: ${formatCount(charts.total[status])}</h2>
${barSeries(
  status,
  label,
  charts.buckets.map((b) => b[status]),
  color,
  axis,
)}</div>`;
}

const WINDOW_LABELS: Record<ChartWindow, string> = { '1h': '1 h', '24h': '24 h', '7d': '7 d' };

/** The queue name from its path segment; null (so 404) when the encoding is broken. */
export function queueNameFrom(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/**
 * One queue over a window (`?window=1h|24h|7d`): jobs completed and failed per bucket and
 * the p50/p95 wait from run_at to start. An unknown queue is 404, a bad window 400.
 */
export async function queuePage(ctx: DashboardContext, name: string): Promise<Html> {
  const window = parseChartWindow(ctx.url.searchParams.get('window'));
  const charts = await loadQueueCharts(ctx.core, name, window);
  const shape = CHART_WINDOWS[window];
  const axis: TimeAxis = {
    bucketSeconds: shape.seconds / shape.buckets,
    startLabel: `${WINDOW_LABELS[window]} ago`,
  };
  const { total, buckets } = charts;
  const refresh = ctx.url.searchParams.get('refresh') ?? undefined;
  const windows = CHART_WINDOW_NAMES.map(
    (w) =>
      html`<a href="${href(ctx, ctx.url.pathname, { window: w, refresh })}" class="${w === window ? 'current' : ''}" data-window="${w}">${WINDOW_LABELS[w]}</a>`,
  );
  const body = html`${refreshToggle(ctx)}
<p>${charts.paused ? html`<span class="paused-flag">paused</span> · ` : ''}<a href="${href(ctx, '/jobs', { queue: name })}">jobs of this queue</a>
· <a href="${href(ctx, `/queues/${encodeURIComponent(name)}/keys`)}" id="queue-keys">concurrency keys</a>
· <span class="windows">window: ${windows.map((w, i) => html`${i > 0 ? ' · ' : ''}${w}`)}</span></p>
${countCard(charts, 'completed', '#2f9e61', axis)}
${countCard(charts, 'failed', '#d2473b', axis)}
<div class="card chart" id="chart-wait"><h2>Wait from run_at to start, per ${shape.bucketLabel}: p50
<span data-total-p50-ms="${total.waitP50Ms === null ? '' : Math.round(total.waitP50Ms)}">${formatWait(total.waitP50Ms)}</span>, p95
<span data-total-p95-ms="${total.waitP95Ms === null ? '' : Math.round(total.waitP95Ms)}">${formatWait(total.waitP95Ms)}</span></h2>
${waitSeries(`Wait from run_at to start per ${shape.bucketLabel} over ${shape.label}`, buckets, axis)}</div>
${
  charts.truncated
    ? html`<p class="notice warn" id="charts-truncated">Only the newest ${formatCount(CHART_MAX_ROWS)} finished jobs were read: the older part of the window is not counted.</p>`
    : ''
}
<p class="small muted">Counted from the jobs of this queue that finished in the window and are still
stored: retention deletes finished jobs, so a window longer than the queue keeps them (see
<a href="${href(ctx, '/retention')}">Retention</a>) shows only what is left. The wait is that of
the attempt that finished; cancelled or expired jobs count in neither chart.</p>`;
  return layout(ctx, `Queue ${name}`, '/', body);
}
