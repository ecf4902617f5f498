import { type Html, html } from './html.js';

/*
 * The box every chart of the dashboard is drawn in. The marks are SVG stretched to the box's
 * width at a fixed height in CSS pixels (preserveAspectRatio="none"), and every word of text,
 * the axes' labels included, is HTML beside it: text inside a scaled SVG shrinks with the
 * page, to 5 px on a phone. The stylesheet (`.plot`) places the labels on the grid lines.
 */

/** The drawing's width in its own units: it is stretched to the width of its box. */
export const FRAME_W = 720;
/** The drawing's height, in its own units and in CSS pixels alike (the stylesheet keeps them equal). */
export const FRAME_H = 150;
/** Room above the top grid line and below the bottom one, so a mark on either stays whole. */
const PLOT_TOP = 8;
const PLOT_BOTTOM = 2;
/** The height between the bottom grid line (zero) and the top one (the axis's maximum). */
export const PLOT_H = FRAME_H - PLOT_TOP - PLOT_BOTTOM;

/** The drawing's y of a value at `fraction` of the axis's maximum (0 is the bottom line). */
export function plotY(fraction: number): number {
  return PLOT_TOP + PLOT_H - Math.min(Math.max(fraction, 0), 1) * PLOT_H;
}

/** The bottom of the plot, where bars stand. */
export const PLOT_BASE = PLOT_TOP + PLOT_H;

export interface FrameOptions {
  /** `data-chart` of the SVG, for tests and scripts; none when absent. */
  name?: string;
  /** What the chart shows, in words (the SVG's accessible name). */
  label: string;
  /** The y axis's labels at zero, half and the maximum. */
  ticks: [string, string, string];
  /** The x axis's labels, spread evenly from the left end to the right one. */
  xLabels: string[];
  marks: Html[];
}

/** The chart: y labels, the drawing with its three grid lines, and the x labels under it. */
export function chartFrame(options: FrameOptions): Html {
  const grid = [0, 0.5, 1].map((f) => {
    const y = plotY(f).toFixed(1);
    return html`<line x1="0" x2="${FRAME_W}" y1="${y}" y2="${y}" stroke="#dde2ea" vector-effect="non-scaling-stroke"/>`;
  });
  const [zero, half, top] = options.ticks;
  return html`<div class="plot">
<div class="y-axis" aria-hidden="true"><span class="tick">${top}</span><span class="tick">${half}</span><span class="tick">${zero}</span></div>
<svg viewBox="0 0 ${FRAME_W} ${FRAME_H}" role="img" aria-label="${options.label}"${options.name === undefined ? '' : html` data-chart="${options.name}"`} preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">
${grid}${options.marks}</svg>
<div class="x-axis" aria-hidden="true">${options.xLabels.map((label) => html`<span>${label}</span>`)}</div>
</div>`;
}

/**
 * The values of a chart as a table folded under it: a bar's tooltip needs a mouse, so a
 * touch screen reads the values here ("Tap to list the values").
 */
export function valuesTable(caption: string, head: string[], rows: (string | number)[][]): Html {
  if (rows.length === 0) return html``;
  return html`<details class="chart-values"><summary>${caption}</summary>
<div class="scroll"><table><thead><tr>${head.map((h, i) => html`<th class="${i === 0 ? '' : 'num'}">${h}</th>`)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${row.map((cell, i) => html`<td class="${i === 0 ? 'when' : 'num'}">${String(cell)}</td>`)}</tr>`)}</tbody></table></div></details>`;
}
