import { type Html, html } from './html.js';

export interface MinuteBucket {
  completed: number;
  failed: number;
  other: number;
}

const WIDTH = 720;
const HEIGHT = 170;
const LEFT = 44;
const BOTTOM = 22;
const TOP = 8;

/**
 * Jobs finished per minute over the last hour as stacked bars (completed, failed, other),
 * drawn server-side as SVG with presentation attributes only (the CSP forbids inline style).
 */
export function throughputChart(buckets: MinuteBucket[]): Html {
  const totals = buckets.map((b) => b.completed + b.failed + b.other);
  const max = niceCountMax(Math.max(...totals, 0));
  const plotW = WIDTH - LEFT - 8;
  const plotH = HEIGHT - TOP - BOTTOM;
  const slot = plotW / buckets.length;
  const barW = Math.max(slot - 2, 1);
  const y = (n: number) => (n / max) * plotH;
  const bars = buckets.map((b, i) => {
    const x = LEFT + i * slot + 1;
    let base = TOP + plotH;
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
    const ago = buckets.length - 1 - i;
    const label = `${ago === 0 ? 'this minute' : `${ago} min ago`}: ${b.completed} completed, ${b.failed} failed, ${b.other} other`;
    return html`<g><title>${label}</title><rect x="${(LEFT + i * slot).toFixed(1)}" y="${TOP}" width="${slot.toFixed(1)}" height="${plotH}" fill="transparent"/>${parts}</g>`;
  });
  const grid = [0, 0.5, 1].map((f) => {
    const gy = TOP + plotH - f * plotH;
    return html`<line x1="${LEFT}" x2="${WIDTH - 8}" y1="${gy.toFixed(1)}" y2="${gy.toFixed(1)}" stroke="#dde2ea"/>
<text x="${LEFT - 6}" y="${(gy + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#5b6577">${Math.round(max * f)}</text>`;
  });
  const total = totals.reduce((s, n) => s + n, 0);
  return html`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${`Jobs finished per minute over the last hour: ${total} in all`}" xmlns="http://www.w3.org/2000/svg">
${grid}${bars}
<text x="${LEFT}" y="${HEIGHT - 6}" font-size="11" fill="#5b6577">60 min ago</text>
<text x="${WIDTH - 8}" y="${HEIGHT - 6}" font-size="11" fill="#5b6577" text-anchor="end">now</text>
</svg>
<div class="small muted">per minute, stacked: <span class="legend-ok">■</span> completed <span class="legend-bad">■</span> failed <span class="legend-other">■</span> cancelled/expired</div>`;
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
