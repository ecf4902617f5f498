import { chartFrame, FRAME_W, PLOT_BASE, PLOT_H, plotY, valuesTable } from './chart-frame.js';
import { type Html, html } from './html.js';

export interface MinuteBucket {
  completed: number;
  failed: number;
  other: number;
}

/**
 * Jobs finished per minute over the last hour as stacked bars (completed, failed, other),
 * drawn server-side as SVG with presentation attributes only (the CSP forbids inline style),
 * its labels in HTML (see chart-frame.ts).
 */
export function throughputChart(buckets: MinuteBucket[]): Html {
  const totals = buckets.map((b) => b.completed + b.failed + b.other);
  const max = niceCountMax(Math.max(...totals, 0));
  const slot = FRAME_W / buckets.length;
  const barW = Math.max(slot - 2, 1);
  const y = (n: number) => (n / max) * PLOT_H;
  const bars = buckets.map((b, i) => {
    const x = i * slot + 1;
    let base = PLOT_BASE;
    const parts: Html[] = [];
    for (const [n, color] of [
      [b.completed, '#2f9e61'],
      [b.failed, '#d2473b'],
      [b.other, '#9aa5b8'],
    ] as const) {
      if (n <= 0) continue;
      const h = Math.max(y(n), 1);
      base -= h;
      parts.push(
        html`<rect x="${x.toFixed(1)}" y="${base.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${color}"/>`,
      );
    }
    const label = `${minuteLabel(buckets.length - 1 - i)}: ${b.completed} completed, ${b.failed} failed, ${b.other} other`;
    return html`<g><title>${label}</title><rect x="${(i * slot).toFixed(1)}" y="${plotY(1).toFixed(1)}" width="${slot.toFixed(1)}" height="${PLOT_H}" fill="transparent"/>${parts}</g>`;
  });
  const total = totals.reduce((s, n) => s + n, 0);
  const rows = buckets
    .map((b, i) => ({ b, ago: buckets.length - 1 - i }))
    .filter(({ b }) => b.completed + b.failed + b.other > 0)
    .map(({ b, ago }) => [minuteLabel(ago), b.completed, b.failed, b.other]);
  return html`${chartFrame({
    name: 'throughput',
    label: `Jobs finished per minute over the last hour: ${total} in all`,
    ticks: ['0', String(max / 2), String(max)],
    xLabels: ['60 min ago', '30 min ago', 'now'],
    marks: bars,
  })}
<div class="small muted legend">per minute, stacked: <span class="legend-ok">■</span> completed <span class="legend-bad">■</span> failed <span class="legend-other">■</span> cancelled/expired</div>
${valuesTable(`Values (tap to list; ${rows.length} ${rows.length === 1 ? 'minute' : 'minutes'} with jobs)`, ['minute', 'completed', 'failed', 'other'], rows)}`;
}

function minuteLabel(ago: number): string {
  return ago === 0 ? 'this minute' : `${ago} min ago`;
}

/**
 * The top of a chart of counts: a round number whose half, the middle grid line, is a whole
 * number too (a top of 1 or 5 would label its middle line "1" or "3").
 */
export function niceCountMax(n: number): number {
  const top = niceMax(Math.max(1, n));
  return top % 2 === 0 ? top : top * 2;
}

export function niceMax(n: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= n) return step * magnitude;
  return 10 * magnitude;
}
