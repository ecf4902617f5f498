import { formatSeconds, formatTime } from '../admin/format.js';
import { finiteTime } from '../admin/workflow-wait.js';
import { propertyOf } from '../model/guards.js';
import type { RunHistory } from '../model/history.js';
import type { Job } from '../model/job.js';
import type { CheckpointRow } from '../storage/storage.js';
import { type Html, html } from './html.js';

const WIDTH = 960;
const LABEL_W = 190;
const RIGHT = 12;
const ROW_H = 20;
const AXIS_H = 26;
/** Checkpoints drawn on a row of their own; the rest share one last row (each still has its mark). */
const LABELLED_ROWS = 40;
const LABEL_CHARS = 24;

const COLORS = { ok: '#2f9e61', bad: '#d2473b', run: '#1f5fbf', wait: '#6b46c1', muted: '#9aa5b8' };

interface Span {
  from: number;
  to: number;
  color: string;
  label: string;
  dashed?: boolean;
}

/**
 * The job's attempts and checkpoints on one time axis, from its creation to its end (or now),
 * drawn server-side as SVG with presentation attributes only (the CSP forbids inline style).
 * One row for the attempts, then one per checkpoint: a mark at the time it was saved, with a
 * line to the wake time of a sleep or the deadline of a signal wait. Labels are escaped.
 */
export function stepTimeline(
  job: Job,
  checkpoints: CheckpointRow[],
  history: RunHistory,
  now = Date.now(),
): Html {
  const attempts = attemptSpans(job, history, checkpoints, now);
  const start = job.createdAt.getTime();
  const times = [
    start,
    ...attempts.map((a) => a.to),
    ...checkpoints.map((c) => c.createdAt.getTime()),
    job.finishedAt?.getTime() ?? now,
  ];
  const end = Math.max(start + 1000, ...times);
  const plotW = WIDTH - LABEL_W - RIGHT;
  const x = (t: number) => LABEL_W + ((Math.min(Math.max(t, start), end) - start) / (end - start)) * plotW;
  const labelled = checkpoints.slice(0, LABELLED_ROWS);
  const overflow = checkpoints.slice(LABELLED_ROWS);
  const rows = 1 + labelled.length + (overflow.length > 0 ? 1 : 0);
  const height = AXIS_H + rows * ROW_H + 8;
  const rowY = (row: number) => AXIS_H + row * ROW_H + ROW_H / 2;

  const attemptRow = html`<text x="${LABEL_W - 8}" y="${rowY(0) + 4}" text-anchor="end" font-size="11" fill="#3b4558">attempts</text>
${attempts.map((a) => {
  const x1 = x(a.from);
  const w = Math.max(x(a.to) - x1, 3);
  return a.dashed
    ? html`<g class="mark-attempt"><title>${a.label}</title><line x1="${x1.toFixed(1)}" x2="${(x1 + w).toFixed(1)}" y1="${rowY(0)}" y2="${rowY(0)}" stroke="${a.color}" stroke-width="3" stroke-dasharray="4 3"/></g>`
    : html`<g class="mark-attempt"><title>${a.label}</title><rect x="${x1.toFixed(1)}" y="${rowY(0) - 6}" width="${w.toFixed(1)}" height="12" rx="2" fill="${a.color}"/></g>`;
})}`;
  const checkpointRows = [
    ...labelled.map((c, i) => checkpointMark(c, i + 1, shorten(c.name), x, rowY, end)),
    ...overflow.map((c) => checkpointMark(c, labelled.length + 1, `+${overflow.length} more`, x, rowY, end)),
  ];
  return html`<svg viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${`Attempts and ${checkpoints.length} checkpoints from ${formatTime(new Date(start))} to ${formatTime(new Date(end))}`}" xmlns="http://www.w3.org/2000/svg" id="step-timeline">
${axis(start, end, x, height)}${attemptRow}${checkpointRows}
</svg>
<div class="small muted">${formatTime(new Date(start))} → ${formatTime(new Date(end))}; <span class="legend-ok">■</span> completed
<span class="legend-bad">■</span> failed <span class="legend-run">■</span> running <span class="legend-wait">■</span> parked, sleep or wait;
hover a mark for its name and time; on a touch screen, the Attempts list and the Checkpoints table give the same times.</div>`;
}

function checkpointMark(
  c: CheckpointRow,
  row: number,
  label: string,
  x: (t: number) => number,
  rowY: (row: number) => number,
  end: number,
): Html {
  const at = c.createdAt.getTime();
  const y = rowY(row);
  const until = waitsUntil(c);
  const line =
    until !== null
      ? html`<line x1="${x(at).toFixed(1)}" x2="${x(Math.min(until, end)).toFixed(1)}" y1="${y}" y2="${y}" stroke="${COLORS.wait}" stroke-width="2"${until > end ? html` stroke-dasharray="4 3"` : ''}/>`
      : '';
  const title = `${c.name} (${c.kind}) saved ${formatTime(c.createdAt)}${until !== null ? `; ${c.kind === 'sleep' ? 'wakes' : 'times out'} ${formatTime(new Date(until))}` : ''}`;
  const fill = c.kind === 'step' ? COLORS.ok : COLORS.wait;
  return html`<text x="${LABEL_W - 8}" y="${y + 4}" text-anchor="end" font-size="11" fill="#3b4558" font-family="monospace">${label}</text>
<g class="mark-checkpoint" data-kind="${c.kind}"><title>${title}</title>${line}<circle cx="${x(at).toFixed(1)}" cy="${y}" r="5" fill="${fill}"/></g>`;
}

/** A sleep's wake time or a pending signal wait's deadline, as stored in its checkpoint. */
function waitsUntil(c: CheckpointRow): number | null {
  const value =
    c.kind === 'sleep'
      ? propertyOf(c.output, 'wakeAt')
      : c.kind === 'wait' && propertyOf(c.output, 'state') === 'waiting'
        ? propertyOf(c.output, 'deadline')
        : null;
  if (typeof value !== 'string') return null;
  return finiteTime(new Date(value))?.getTime() ?? null;
}

/**
 * The job's runs from its history: a workflow's each run (coloured by how it ended) and each
 * time it lay parked between runs (dashed); the attempts without runs of their own (a plain
 * job's, a run that made no workflow call) from their attempt records. A parked workflow's
 * current wait runs to now.
 */
function attemptSpans(job: Job, history: RunHistory, checkpoints: CheckpointRow[], now: number): Span[] {
  const runs = history.events.filter((e) => e.kind === 'run');
  const runStarts = new Set(runs.map((run) => run.at.getTime()));
  const spans: Span[] = [];
  for (const a of history.attempts) {
    const from = a.startedAt?.getTime();
    if (from === undefined || runStarts.has(from)) continue;
    const running = a.outcome === 'running' || a.outcome === 'waiting';
    const to = a.endedAt?.getTime() ?? (running ? now : from);
    const parked = a.outcome === 'waiting';
    const until = parked ? Math.max(from, ...checkpoints.map((c) => c.createdAt.getTime())) : to;
    spans.push({
      from,
      to: until,
      color: OUTCOME_COLORS[a.outcome] ?? COLORS.muted,
      label: `attempt ${a.attempt} ${a.outcome}`,
    });
    if (parked)
      spans.push({
        from: until,
        to: now,
        color: COLORS.wait,
        dashed: true,
        label: `attempt ${a.attempt} parked`,
      });
  }
  runs.forEach((run, i) => {
    const outcome = String(run.detail.outcome ?? '');
    const from = run.at.getTime();
    const to = run.endedAt?.getTime() ?? from;
    spans.push({
      from,
      to,
      color: OUTCOME_COLORS[outcome] ?? COLORS.muted,
      label: `attempt ${run.attempt}, run ${i + 1}: ${outcome}, ${formatTime(run.at)} → ${formatTime(run.endedAt)}`,
    });
    if (outcome !== 'waiting') return;
    const next =
      runs[i + 1]?.at.getTime() ?? (job.status === 'active' ? job.startedAt?.getTime() : undefined) ?? now;
    spans.push({
      from: to,
      to: next,
      color: COLORS.wait,
      dashed: true,
      label: `parked on ${String(run.detail.wait ?? 'a wait')}`,
    });
  });
  // The run going on now is not in the history yet.
  const started = job.startedAt?.getTime();
  if (job.status === 'active' && started !== undefined && !spans.some((span) => span.from === started)) {
    spans.push({
      from: started,
      to: now,
      color: COLORS.run,
      label: `attempt ${job.attempts} running since ${formatTime(job.startedAt)}`,
    });
  }
  return spans;
}

const OUTCOME_COLORS: Record<string, string> = {
  completed: COLORS.ok,
  failed: COLORS.bad,
  retry: COLORS.bad,
  stalled: COLORS.bad,
  running: COLORS.run,
  waiting: COLORS.run,
};

function axis(start: number, end: number, x: (t: number) => number, height: number): Html {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => start + f * (end - start));
  return html`${ticks.map((t, i) => {
    // The first tick is the creation time; the others count from it, readable at any span.
    const text = i === 0 ? formatTime(new Date(t)).slice(11, 19) : `+${formatSeconds((t - start) / 1000)}`;
    const anchor = i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle';
    return html`<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${AXIS_H - 6}" y2="${height - 4}" stroke="#dde2ea"/>
<text x="${x(t).toFixed(1)}" y="${AXIS_H - 10}" text-anchor="${anchor}" font-size="11" fill="#5b6577">${text}</text>`;
  })}`;
}

function shorten(name: string): string {
  return name.length > LABEL_CHARS ? `${name.slice(0, LABEL_CHARS - 1)}…` : name;
}
