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
import { loadQueueSummary } from '../../admin/queue-summary.js';
import { actionButton, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';
import { refreshToggle } from '../refresh.js';
import { barSeries, formatWait, percentileSeries, type TimeAxis, waitSeries } from '../series-chart.js';
import { queueCounts, queueOptions } from './queue-options.js';

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

/** A p50/p95 figure of the whole window, with its milliseconds for scripts and tests. */
function totalFigure(kind: string, ms: number | null): Html {
  return html`<span data-total-${kind}-ms="${ms === null ? '' : Math.round(ms)}">${formatWait(ms)}</span>`;
}

/**
 * One queue: its counts (ready, scheduled, latency, per status), its stored options, pause
 * or resume, and over a window (`?window=1h|24h|7d`) jobs completed and failed per bucket,
 * the p50/p95 wait from run_at to start and the p50/p95 execution time. An unknown queue is
 * 404, a bad window 400.
 */
export async function queuePage(ctx: DashboardContext, name: string): Promise<Html> {
  const window = parseChartWindow(ctx.url.searchParams.get('window'));
  const charts = await loadQueueCharts(ctx.core, name, window);
  const [summary, limiters] = await Promise.all([loadQueueSummary(ctx.core, name), ctx.tm.listLimiters()]);
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
<p class="queue-links">${summary.paused ? html`<span class="paused-flag">paused</span> · ` : ''}<a href="${href(ctx, '/jobs', { queue: name })}">jobs of this queue</a>
· <a href="${href(ctx, `/queues/${encodeURIComponent(name)}/keys`)}" id="queue-keys">concurrency keys</a></p>
<div class="actions">${
    summary.paused
      ? actionButton(ctx, '/queues/resume', 'Resume', { queue: name, from: 'queue' })
      : actionButton(ctx, '/queues/pause', 'Pause', { queue: name, from: 'queue' })
  }</div>
${queueCounts(ctx, summary)}
${queueOptions(ctx, summary, limiters)}
<p class="windows">Charts over: ${windows.map((w, i) => html`${i > 0 ? ' · ' : ''}${w}`)}</p>
${countCard(charts, 'completed', '#2f9e61', axis)}
${countCard(charts, 'failed', '#d2473b', axis)}
<div class="card chart" id="chart-wait"><h2>Wait from run_at to start, per ${shape.bucketLabel}: p50
${totalFigure('p50', total.waitP50Ms)}, p95 ${totalFigure('p95', total.waitP95Ms)}</h2>
${waitSeries(`Wait from run_at to start per ${shape.bucketLabel} over ${shape.label}`, buckets, axis)}</div>
<div class="card chart" id="chart-run"><h2>Execution time, per ${shape.bucketLabel}: p50
${totalFigure('run-p50', total.runP50Ms)}, p95 ${totalFigure('run-p95', total.runP95Ms)}</h2>
${percentileSeries(
  'run',
  `Execution time (start to finish) per ${shape.bucketLabel} over ${shape.label}`,
  'the execution time, started_at to finished_at',
  buckets.map((b) => ({ p50Ms: b.runP50Ms, p95Ms: b.runP95Ms })),
  axis,
)}</div>
${
  charts.truncated
    ? html`<p class="notice warn" id="charts-truncated">Only the newest ${formatCount(CHART_MAX_ROWS)} finished jobs were read: the older part of the window is not counted.</p>`
    : ''
}
<p class="small muted">Counted from the jobs of this queue that finished in the window and are still
stored: retention deletes finished jobs, so a window longer than the queue keeps them (see
<a href="${href(ctx, '/retention')}">Retention</a>) shows only what is left. The wait is that of
the attempt that finished, and so is the execution time; cancelled or expired jobs count in
neither chart. Counts above are of the jobs stored now: ready jobs are due (run_at has come),
scheduled ones wait for their run_at, and latency is how long the oldest ready job has waited.</p>`;
  return layout(ctx, `Queue ${name}`, '/', body);
}
