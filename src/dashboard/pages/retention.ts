import { formatCount, formatTime, formatWindow, relativeTime } from '../../admin/format.js';
import {
  loadRetentionInfo,
  type QueuePolicy,
  RECENT_JOBS,
  type RetentionInfo,
} from '../../admin/retention-info.js';
import { FINISHED_STATUSES } from '../../job-status.js';
import { actionButton, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice } from '../layout.js';
import { windowsText } from './apply-retention.js';
import { holdsCard, pauseCard } from './retention-controls.js';

const DONE_MESSAGES: Record<string, string> = {
  paused: 'Retention is paused cluster-wide.',
  resumed: 'Retention runs again: the next sweep deletes what is due.',
  held: 'The hold is in place.',
  released: 'The hold was released: its jobs go by their windows again.',
};

/**
 * The switch, the holds, effective policies per queue (each with a way to apply it to the
 * queue's history), last sweeps, next sweep, and a dry-run preview on request.
 */
export async function retentionPage(ctx: DashboardContext): Promise<Html> {
  const info = await loadRetentionInfo(ctx.core);
  const wantPreview = ctx.url.searchParams.get('preview') === '1';
  const preview = wantPreview ? await ctx.tm.sweep({ dryRun: true }) : null;
  const done = DONE_MESSAGES[ctx.url.searchParams.get('done') ?? ''];
  const body = html`${done ? notice('ok', done) : ''}
${pauseCard(ctx)}
${holdsCard(
  ctx,
  info.holds,
  info.policies.map((p) => p.queue),
)}
<div class="card" id="next-sweep"><h2>Next sweep</h2>
${sweepSchedule(ctx, info)}
${
  preview
    ? html`<div id="sweep-preview"><p>A sweep now would delete <strong>${formatCount(preview.jobs)}</strong> jobs,
<strong>${formatCount(preview.signals)}</strong> consumed signals, <strong>${formatCount(preview.logLines ?? 0)}</strong> log lines and <strong>${formatCount(preview.uniqueLocks)}</strong> expired unique locks (dry run: nothing was deleted).</p>
${preview.byQueue.length > 0 ? breakdown(preview.byQueue) : ''}</div>`
    : html`<a class="button" href="${href(ctx, '/retention', { preview: '1' })}" id="preview-sweep">Preview the next sweep (dry run)</a>`
}
</div>
<div class="card"><h2>Effective policies</h2>
<p class="small muted">Engine default of this process: ${info.engineDisabled ? 'retention: false (keep everything)' : windowsText(info.engine)}.
Jobs keep the windows frozen on them when they were added.</p>
<div class="scroll"><table><thead><tr><th>queue</th><th>from</th>${FINISHED_STATUSES.map((s) => html`<th>${s}</th>`)}<th>consumed signals</th><th>log lines</th><th>newest jobs carry</th><th></th></tr></thead><tbody>
${info.policies.map(
  (p) =>
    html`<tr><td>${p.queue}</td><td class="small">${p.source}</td>${FINISHED_STATUSES.map(
      (s) => html`<td class="small">${formatWindow(p.windows[s])}</td>`,
    )}<td class="small">${p.windows.consumedSignals ? formatWindow(p.windows.consumedSignals) : 'with the job'}</td>
<td class="small">${p.windows.logsAfterSeconds ? formatWindow(p.windows.logsAfterSeconds) : 'with the job'}</td>
<td class="small carried">${carriedCell(p)}</td>
<td>${actionButton(ctx, '/retention/apply/preview', 'Apply to history…', { queue: p.queue })}</td></tr>`,
)}
</tbody></table></div>
<p class="small muted">"Newest jobs carry": the windows frozen on each queue's newest ${formatCount(RECENT_JOBS)} jobs, which retention applies to them whatever the policy says now.
Apply to history re-freezes the windows of the queue's jobs already in the database with the policy shown (a dry-run count comes first).</p></div>
<div class="card"><h2>Last sweeps</h2>
${
  info.sweeps.length === 0
    ? html`<p class="muted">No sweeps recorded yet.</p>`
    : html`<div class="scroll"><table class="sweeps"><thead><tr><th>started</th><th>kind</th><th class="num">jobs</th><th class="num">signals</th><th class="num">log lines</th><th class="num">unique locks</th><th>by queue</th><th>error</th></tr></thead><tbody>
${info.sweeps.map(
  (
    s,
  ) => html`<tr><td class="small">${formatTime(s.startedAt)}</td><td>${s.kind}</td><td class="num">${formatCount(s.jobs)}</td>
<td class="num">${formatCount(s.signals)}</td><td class="num">${formatCount(s.logLines)}</td><td class="num">${formatCount(s.uniqueLocks)}</td>
<td class="small">${s.byQueue.map((b) => `${b.queue}/${b.status}: ${b.count}`).join(', ')}</td><td class="small">${s.error ?? ''}</td></tr>`,
)}</tbody></table></div>`
}</div>`;
  return layout(ctx, 'Retention', '/retention', body);
}

/** The sweep as the live workers run it: their intervals and batch sizes, the last turn and the next. */
function sweepSchedule(ctx: DashboardContext, info: RetentionInfo): Html {
  const { workers, lastRunAt, nextDueAt } = info;
  const last = lastRunAt
    ? html`Last sweep turn ${formatTime(lastRunAt)} (${relativeTime(lastRunAt)}).`
    : html`No sweep turn recorded yet.`;
  const paused = ctx.retention.paused
    ? html`<p><strong>Retention is paused</strong>: the sweeps run but delete nothing until it is resumed.</p>`
    : '';
  if (workers.sweepers === 0) {
    const who =
      workers.live === 0
        ? html`No live worker is registered (see <a href="${href(ctx, '/workers')}">Workers</a>).`
        : html`${formatCount(workers.live)} live worker${workers.live === 1 ? '' : 's'}, none with the retention sweep on.`;
    return html`<p><strong>No live worker sweeps.</strong> ${who} ${last}</p>${paused}`;
  }
  const every = workers.intervals.map((s) => formatWindow(s)).join(' or ');
  const batches = workers.batchSizes.map((n) => formatCount(n)).join(' or ');
  const next = nextDueAt
    ? html` Next due about ${formatTime(nextDueAt)} (${relativeTime(nextDueAt)}).`
    : html` A sweeping worker takes its first turn a few seconds after it starts.`;
  return html`<p>${formatCount(workers.sweepers)} of ${formatCount(workers.live)} live workers sweep
<span id="sweep-interval">every ${every}</span> in batches of ${batches} rows, one node per interval. ${last}${next}</p>${paused}`;
}

/** The windows the queue's newest jobs carry, each set with its count; those unlike the policy flagged. */
function carriedCell(policy: QueuePolicy): Html {
  if (policy.carried.length === 0) return html`<span class="muted">no jobs</span>`;
  return html`${policy.carried.map(
    (c) =>
      html`<div class="${c.matchesPolicy ? '' : 'differs'}">${formatCount(c.jobs)} × ${windowsText(c.windows)}${
        c.matchesPolicy ? '' : html` <strong>(not the policy)</strong>`
      }</div>`,
  )}`;
}

function breakdown(rows: { queue: string; status: string; count: number }[]): Html {
  return html`<div class="scroll"><table><thead><tr><th>queue</th><th>status</th><th class="num">jobs</th></tr></thead><tbody>${rows.map(
    (r) => html`<tr><td>${r.queue}</td><td>${r.status}</td><td class="num">${formatCount(r.count)}</td></tr>`,
  )}</tbody></table></div>`;
}
