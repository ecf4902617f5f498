import { formatSeconds } from '../admin/format.js';
import { niceCountMax, niceMax } from './chart.js';
import { chartFrame, FRAME_W, PLOT_BASE, PLOT_H, plotY, valuesTable } from './chart-frame.js';
import { type Html, html } from './html.js';

/** How the buckets of a series sit in time: their width and what the axis says at each end. */
export interface TimeAxis {
  bucketSeconds: number;
  /** The left end's label, such as "24 h ago". */
  startLabel: string;
}

/** A wait in milliseconds as read on the page: "850 ms", "10.5 s", "4 min". */
export function formatWait(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  return formatSeconds(ms / 1000);
}

/** The span of time a bucket covers: "last 15 min", "30 min to 45 min ago". */
function bucketTime(axis: TimeAxis, ago: number): string {
  const size = axis.bucketSeconds;
  return ago === 0
    ? `last ${formatSeconds(size)}`
    : `${formatSeconds(ago * size)} to ${formatSeconds((ago + 1) * size)} ago`;
}

/** The x axis's labels: the window's start, its middle, and now. */
function timeLabels(axis: TimeAxis, buckets: number): string[] {
  return [axis.startLabel, `${formatSeconds((axis.bucketSeconds * buckets) / 2)} ago`, 'now'];
}

/** One bar per bucket (oldest first), each with its count in a tooltip and a data attribute. */
export function barSeries(
  name: string,
  label: string,
  values: number[],
  color: string,
  axis: TimeAxis,
): Html {
  const max = niceCountMax(Math.max(...values, 0));
  const slot = FRAME_W / values.length;
  const bars = values.map((n, i) => {
    const ago = values.length - 1 - i;
    const h = n > 0 ? Math.max((n / max) * PLOT_H, 1) : 0;
    const x = i * slot;
    return html`<g data-ago="${ago}" data-n="${n}"><title>${`${bucketTime(axis, ago)}: ${n} ${name}`}</title><rect x="${x.toFixed(1)}" y="${plotY(1).toFixed(1)}" width="${slot.toFixed(1)}" height="${PLOT_H}" fill="transparent"/>${
      h > 0
        ? html`<rect x="${(x + 0.5).toFixed(1)}" y="${(PLOT_BASE - h).toFixed(1)}" width="${Math.max(slot - 1, 0.5).toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"/>`
        : ''
    }</g>`;
  });
  const rows = values
    .map((n, i) => ({ n, ago: values.length - 1 - i }))
    .filter((v) => v.n > 0)
    .map((v) => [bucketTime(axis, v.ago), v.n]);
  return html`${chartFrame({
    name,
    label,
    ticks: ['0', String(max / 2), String(max)],
    xLabels: timeLabels(axis, values.length),
    marks: bars,
  })}
${valuesTable(`Values (tap to list; ${rows.length} ${rows.length === 1 ? 'bucket' : 'buckets'} with jobs)`, ['when', name], rows)}`;
}

/** p50 and p95 of a duration per bucket; buckets with none stay empty. */
export interface PercentileBucket {
  p50Ms: number | null;
  p95Ms: number | null;
}

/**
 * p50 and p95 per bucket as two rows of marks (`name` is the chart's data-chart: "wait",
 * "run"); `what` says what was measured, for the legend and the values.
 */
export function percentileSeries(
  name: string,
  label: string,
  what: string,
  buckets: PercentileBucket[],
  axis: TimeAxis,
): Html {
  const max = niceMax(Math.max(1, ...buckets.map((b) => b.p95Ms ?? b.p50Ms ?? 0)));
  const slot = FRAME_W / buckets.length;
  const y = (ms: number) => plotY(ms / max).toFixed(1);
  const marks = buckets.map((b, i) => {
    const ago = buckets.length - 1 - i;
    if (b.p50Ms === null || b.p95Ms === null) return html``;
    const x1 = (i * slot + 0.5).toFixed(1);
    const x2 = ((i + 1) * slot - 0.5).toFixed(1);
    const title = `${bucketTime(axis, ago)}: p50 ${formatWait(b.p50Ms)}, p95 ${formatWait(b.p95Ms)}`;
    return html`<g data-ago="${ago}" data-p50-ms="${Math.round(b.p50Ms)}" data-p95-ms="${Math.round(b.p95Ms)}"><title>${title}</title>
<line x1="${x1}" x2="${x2}" y1="${y(b.p95Ms)}" y2="${y(b.p95Ms)}" stroke="#d2473b" stroke-width="2" vector-effect="non-scaling-stroke"/>
<line x1="${x1}" x2="${x2}" y1="${y(b.p50Ms)}" y2="${y(b.p50Ms)}" stroke="#1f5fbf" stroke-width="2" vector-effect="non-scaling-stroke"/></g>`;
  });
  const rows = buckets
    .map((b, i) => ({ b, ago: buckets.length - 1 - i }))
    .filter(({ b }) => b.p50Ms !== null && b.p95Ms !== null)
    .map(({ b, ago }) => [bucketTime(axis, ago), formatWait(b.p50Ms), formatWait(b.p95Ms)]);
  return html`${chartFrame({
    name,
    label,
    ticks: ['0', formatWait(max / 2), formatWait(max)],
    xLabels: timeLabels(axis, buckets.length),
    marks,
  })}
<div class="small muted legend"><span class="legend-p50">■</span> p50 <span class="legend-bad">■</span> p95 of ${what}</div>
${valuesTable(`Values (tap to list; ${rows.length} ${rows.length === 1 ? 'bucket' : 'buckets'} with jobs)`, ['when', 'p50', 'p95'], rows)}`;
}

/** The wait from run_at to start: `percentileSeries` of the wait chart. */
export function waitSeries(
  label: string,
  buckets: { waitP50Ms: number | null; waitP95Ms: number | null }[],
  axis: TimeAxis,
): Html {
  const points = buckets.map((b) => ({ p50Ms: b.waitP50Ms, p95Ms: b.waitP95Ms }));
  return percentileSeries('wait', label, 'the wait from run_at to start', points, axis);
}
