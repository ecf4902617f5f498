import { formatCount, formatTime, formatWindow, relativeTime } from '../../admin/format.js';
import { loadWorkers } from '../../admin/workers.js';
import { GONE_WORKER_MAX_ROWS } from '../../maintenance/tick/tick.js';
import type { WorkerRecord, WorkerSweepSetting } from '../../model/worker.js';
import type { DashboardContext } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';

/** Every registered worker: where it runs, what it works, how busy it is, whether it still beats. */
export async function workersPage(ctx: DashboardContext): Promise<Html> {
  const { workers, live, gone } = await loadWorkers(ctx.core);
  const now = Date.now();
  const shown =
    workers.length < live + gone
      ? ` Showing ${formatCount(workers.length)} of ${formatCount(live + gone)}, live workers first.`
      : '';
  const body = html`<p>${formatCount(live)} live, ${formatCount(gone)} gone.${shown}</p>
<table class="workers"><thead><tr><th>worker</th><th>host</th><th class="num">pid</th><th>queues</th>
<th class="num">running</th><th class="num">concurrency</th><th>started</th><th>last beat</th><th>state</th><th>sweeps</th></tr></thead><tbody>
${
  workers.length === 0
    ? html`<tr><td colspan="10" class="muted">No worker is registered: start one with tm.worker().start().</td></tr>`
    : workers.map((w) => row(w, now))
}
</tbody></table>
<p class="small muted">Each worker writes its row when it starts, beats every third of its lock period, and deletes
the row when it stops. One that misses three beats (killed, hung, or cut off from the database) shows as gone; the
maintenance tick deletes its row an hour later, and keeps at most the newest ${formatCount(GONE_WORKER_MAX_ROWS)} gone rows.</p>`;
  return layout(ctx, 'Workers', '/workers', body);
}

function row(w: WorkerRecord, now: number): Html {
  return html`<tr data-worker="${w.id}"><td class="mono">${w.id}</td><td>${w.host}</td><td class="num">${w.pid}</td>
<td class="small">${w.queues ? w.queues.join(', ') : html`<span class="muted">all with a handler</span>`}</td>
<td class="num">${formatCount(w.running)}</td><td class="num">${formatCount(w.concurrency)}</td>
<td class="small">${formatTime(w.startedAt)}</td>
<td class="small" title="${formatTime(w.heartbeatAt)}">${relativeTime(w.heartbeatAt, now)}</td>
<td>${w.gone ? html`<span class="status status-gone">gone</span>` : html`<span class="status status-live">live</span>`}</td>
<td class="small">retention ${sweepText(w.settings.sweep)}<br>unique locks ${sweepText(w.settings.uniqueLockSweep)}<br>tick every ${formatWindow(w.settings.tickIntervalSeconds)}</td></tr>`;
}

function sweepText(sweep: WorkerSweepSetting | false): string {
  return sweep
    ? `every ${formatWindow(sweep.intervalSeconds)}, batches of ${formatCount(sweep.batchSize)}`
    : 'off';
}
