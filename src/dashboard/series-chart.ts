import { formatSeconds } from '../admin/format.js';
import { niceCountMax, niceMax } from './chart.js';
import { type Html, html } from './html.js';

const WIDTH = 720;
const HEIGHT = 150;
const LEFT = 52;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 22;
const PLOT_W = WIDTH - LEFT - RIGHT;
const PLOT_H = HEIGHT - TOP - BOTTOM;

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

/** The box every series is drawn in: three grid lines with their values, and the time ends. */
function frame(name: string, label: string, max: number, tick: (n: number) => string, marks: Html[]): Html {
  const grid = [0, 0.5, 1].map((f) => {
    const gy = TOP + PLOT_H - f * PLOT_H;
    return html`<line x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${gy.toFixed(1)}" y2="${gy.toFixed(1)}" stroke="#dde2ea"/>
<text x="${LEFT - 6}" y="${(gy + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#5b6577">${tick(max * f)}</text>`;
  });
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}" data-chart="${name}" xmlns="http://www.w3.org/2000/svg">
${grid}${marks}</svg>`;
}

function axisEnds(axis: TimeAxis): Html {
  return html`<div class="axis small muted"><span>${axis.startLabel}</span><span>now</span></div>`;
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
  const slot = PLOT_W / values.length;
  const bars = values.map((n, i) => {
    const ago = values.length - 1 - i;
    const h = n > 0 ? Math.max((n / max) * PLOT_H, 1) : 0;
    const x = LEFT + i * slot;
    return html`<g data-ago="${ago}" data-n="${n}"><title>${`${bucketTime(axis, ago)}: ${n} ${name}`}</title><rect x="${x.toFixed(1)}" y="${TOP}" width="${slot.toFixed(1)}" height="${PLOT_H}" fill="transparent"/>${
      h > 0
        ? html`<rect x="${(x + 0.5).toFixed(1)}" y="${(TOP + PLOT_H - h).toFixed(1)}" width="${Math.max(slot - 1, 0.5).toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"/>`
        : ''
    }</g>`;
  });
  return html`${frame(name, label, max, (n) => String(Math.round(n)), bars)}${axisEnds(axis)}`;
}

/** p50 and p95 wait per bucket as two rows of marks; buckets where nothing started stay empty. */
export function waitSeries(
  label: string,
  buckets: { waitP50Ms: number | null; waitP95Ms: number | null }[],
  axis: TimeAxis,
): Html {
  const max = niceMax(Math.max(1, ...buckets.map((b) => b.waitP95Ms ?? b.waitP50Ms ?? 0)));
  const slot = PLOT_W / buckets.length;
  const y = (ms: number) => (TOP + PLOT_H - (Math.max(ms, 0) / max) * PLOT_H).toFixed(1);
  const marks = buckets.map((b, i) => {
    const ago = buckets.length - 1 - i;
    if (b.waitP50Ms === null || b.waitP95Ms === null) return html``;
    const x1 = (LEFT + i * slot + 0.5).toFixed(1);
    const x2 = (LEFT + (i + 1) * slot - 0.5).toFixed(1);
    const title = `${bucketTime(axis, ago)}: p50 ${formatWait(b.waitP50Ms)}, p95 ${formatWait(b.waitP95Ms)}`;
    return html`<g data-ago="${ago}" data-p50-ms="${Math.round(b.waitP50Ms)}" data-p95-ms="${Math.round(b.waitP95Ms)}"><title>${title}</title>
<line x1="${x1}" x2="${x2}" y1="${y(b.waitP95Ms)}" y2="${y(b.waitP95Ms)}" stroke="#d2473b" stroke-width="2"/>
<line x1="${x1}" x2="${x2}" y1="${y(b.waitP50Ms)}" y2="${y(b.waitP50Ms)}" stroke="#1f5fbf" stroke-width="2"/></g>`;
  });
  return html`${frame('wait', label, max, (ms) => formatWait(ms), marks)}${axisEnds(axis)}
<div class="small muted"><span class="legend-p50">■</span> p50 <span class="legend-bad">■</span> p95 of the wait from run_at to start</div>`;
}
