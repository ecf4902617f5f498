import { formatTime, relativeTime } from '../../admin/format.js';
import { loadSchedules, type ScheduleView } from '../../admin/schedules.js';
import { actionButton, csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice, statusBadge } from '../layout.js';

/** Every cron schedule: its expression, zone and queue, the next fire and the latest fires with their jobs. */
export async function schedulesPage(ctx: DashboardContext): Promise<Html> {
  const schedules = await loadSchedules(ctx.core);
  const removed = ctx.url.searchParams.get('unscheduled');
  const done = ctx.url.searchParams.get('done');
  const doneName = ctx.url.searchParams.get('name') ?? '';
  const rows = schedules.map(
    (s) => html`<tr data-schedule="${s.name}">
<td class="mono">${s.name}</td><td class="mono">${s.cron}</td><td>${s.timezone}</td>
<td><a href="${href(ctx, '/jobs', { queue: s.queue })}">${s.queue}</a></td>
<td class="small next-fire">${nextFireText(s)}</td>
<td class="small">${firesList(ctx, s)}</td>
<td>${scheduleActions(ctx, s)}</td></tr>`,
  );
  const body = html`${removed ? notice('ok', html`Schedule <span class="mono">${removed}</span> was removed; the jobs it created stay.`) : ''}
${done !== null && DONE[done] ? notice('ok', html`Schedule <span class="mono">${doneName}</span> ${DONE[done]}`) : ''}
<table class="schedules"><thead><tr><th>name</th><th>cron</th><th>time zone</th><th>queue</th><th>next fire</th><th>latest fires</th><th></th></tr></thead>
<tbody>${rows.length > 0 ? rows : html`<tr><td colspan="7" class="muted">No schedules: create one with tm.schedule.</td></tr>`}</tbody></table>
<p class="small muted">A running worker's maintenance tick enqueues each due fire once, cluster-wide; a slot missed
while no worker ran fires once when one is back. Times are UTC.</p>`;
  return layout(ctx, 'Schedules', '/schedules', body);
}

const DONE: Record<string, string> = {
  paused: 'is paused: it fires nothing until resumed.',
  resumed: 'fires again from its next slot (the slots it missed while paused are not fired).',
  triggered: 'fired once now.',
  waiting: 'did not fire: its jobs are unique and one is still in flight.',
};

/** Pause or resume, fire now, and unschedule (after a confirmation page). */
function scheduleActions(ctx: DashboardContext, s: ScheduleView): Html {
  if (ctx.readOnly) return html``;
  const fields = { name: s.name };
  return html`${s.paused ? actionButton(ctx, '/schedules/resume', 'Resume', fields) : actionButton(ctx, '/schedules/pause', 'Pause', fields)}
${actionButton(ctx, '/schedules/trigger', 'Fire now', fields)}
<a class="button danger" href="${href(ctx, '/schedules/confirm', { name: s.name })}">Unschedule…</a>`;
}

function nextFireText(s: ScheduleView): Html {
  if (s.paused) return html`<strong>paused</strong>`;
  if (!s.nextFireAt) return html`<span class="muted">never again</span>`;
  return html`${formatTime(s.nextFireAt)} <span class="muted">${relativeTime(s.nextFireAt)}</span>`;
}

function firesList(ctx: DashboardContext, s: ScheduleView): Html {
  if (s.fires.length === 0)
    return html`<span class="muted">${s.lastFireAt ? 'none kept' : 'not fired yet'}</span>`;
  return html`<ul class="fires">${s.fires.map(
    (f) =>
      html`<li>${formatTime(f.fireAt)} → <a href="${href(ctx, `/jobs/${f.jobId}`)}">job ${f.jobId}</a> ${f.status ? statusBadge(f.status) : html`<span class="muted">deleted</span>`}</li>`,
  )}</ul>`;
}

/** The confirmation step before removing a schedule (the removal itself is a POST). */
export async function confirmUnschedulePage(ctx: DashboardContext): Promise<Html | null> {
  const name = ctx.url.searchParams.get('name') ?? '';
  const schedule = (await loadSchedules(ctx.core, 0)).find((s) => s.name === name);
  if (!schedule) return null;
  const body = html`${notice(
    'info',
    html`Remove schedule <span class="mono">${schedule.name}</span> (<span class="mono">${schedule.cron}</span>, ${schedule.timezone}, queue ${schedule.queue})?
It fires no more jobs; the jobs it already created stay.`,
  )}
${
  ctx.readOnly
    ? notice('info', 'Read-only dashboard: actions are turned off.')
    : html`<form method="post" action="${href(ctx, '/schedules/unschedule')}" id="confirm-unschedule">${csrfField(ctx)}
<input type="hidden" name="name" value="${schedule.name}">
<button type="submit" class="danger">Unschedule</button> <a href="${href(ctx, '/schedules')}">Keep it</a></form>`
}`;
  return layout(ctx, `Unschedule ${schedule.name}`, '/schedules', body);
}
