import { formatSeconds, formatTime } from '../../admin/format.js';
import type { HistoryEvent, RunHistory } from '../../model/history.js';
import type { Job } from '../../model/job.js';
import { type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';

/**
 * A workflow's runs, event by event, oldest first, as Temporal's event history shows them:
 * the time, how long after the job was created, the attempt, what happened and its details.
 * Empty for a plain job (its attempts are the Attempts card).
 */
export function historyCard(ctx: DashboardContext, job: Job, history: RunHistory): Html {
  if (history.events.length === 0) return html``;
  const created = job.createdAt.getTime();
  const rows = history.events.map(
    (e) => html`<tr class="history-${e.kind}">
<td class="nowrap">${formatTime(e.at)}</td><td class="num">+${formatSeconds((e.at.getTime() - created) / 1000)}</td>
<td class="num">${e.attempt}</td><td class="nowrap"><strong>${e.kind}</strong></td><td>${describe(ctx, e)}</td></tr>`,
  );
  const dropped =
    history.dropped > 0
      ? html`<p class="small muted">${history.dropped} later events not kept (a job keeps its first 1,000).</p>`
      : '';
  return html`<div class="card"><h2>Run history (${history.events.length} events)</h2>
<div class="scroll"><table id="run-history"><thead><tr><th>time</th><th class="num">after</th><th class="num">attempt</th><th>event</th><th>details</th></tr></thead>
<tbody>${rows}</tbody></table></div>${dropped}</div>`;
}

/** An event's details in words. */
function describe(ctx: DashboardContext, e: HistoryEvent): Html {
  const d = e.detail;
  const text = (key: string) => (typeof d[key] === 'string' ? (d[key] as string) : '');
  const took = e.endedAt ? ` in ${formatSeconds((e.endedAt.getTime() - e.at.getTime()) / 1000)}` : '';
  const error = errorText(d.error);
  switch (e.kind) {
    case 'run':
      return html`${text('outcome')}${text('wait') ? ` (${text('wait')})` : ''}${took}${e.worker ? html` on <span class="mono">${e.worker}</span>` : ''}${error ? html`: <span class="bad">${error}</span>` : ''}`;
    case 'step':
      return html`<span class="mono">${text('name')}</span>${took}${error ? html`: <span class="bad">${error}</span>` : ''}`;
    case 'replay':
      return html`${String(d.count ?? 0)} from checkpoints${Array.isArray(d.steps) ? html`: <span class="mono">${d.steps.join(', ')}</span>` : ''}`;
    case 'parked':
    case 'woke': {
      const until = text('until') ? ` until ${formatTime(text('until'))}` : '';
      if (d.wait === 'child') return html`child ${jobLink(ctx, d.childId)}`;
      const what = d.wait === 'signal' && Array.isArray(d.signals) ? d.signals.join(' | ') : text('name');
      return html`${text('wait')} <span class="mono">${what}</span>${until}`;
    }
    case 'child':
    case 'child-done':
      return html`${jobLink(ctx, d.childId)} ${text('queue')}${text('status')}`;
    case 'signal':
      return html`consumed <span class="mono">${Array.isArray(d.signals) ? d.signals.join(', ') : ''}</span>`;
    case 'timeout':
      return html`<span class="mono">${text('key')}</span> passed its deadline`;
    default:
      return html`<span class="mono">${JSON.stringify(d)}</span>`;
  }
}

function jobLink(ctx: DashboardContext, id: unknown): Html {
  return typeof id === 'string' ? html`<a href="${href(ctx, `/jobs/${id}`)}">${id}</a>` : html``;
}

function errorText(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const { name, message } = error as { name?: unknown; message?: unknown };
  return [name, message].filter((part) => typeof part === 'string' && part !== '').join(': ');
}
