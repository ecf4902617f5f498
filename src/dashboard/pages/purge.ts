import { formatCount, formatSeconds } from '../../admin/format.js';
import { FINISHED_STATUSES } from '../../job-status.js';
import { csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice } from '../layout.js';

/** A manual purge request, as the form posts it. */
export interface PurgeRequest {
  queue?: string;
  statuses: string[];
  olderThanSeconds: number;
}

const AGE_CHOICES: [number, string][] = [
  [0, 'any age'],
  [3600, '1 hour'],
  [86_400, '1 day'],
  [604_800, '7 days'],
  [2_592_000, '30 days'],
];

/** Step 1: choose what to purge. Nothing is deleted from here; the next step counts. */
export async function purgeFormPage(ctx: DashboardContext, error?: string): Promise<Html> {
  if (ctx.readOnly) {
    return layout(ctx, 'Purge', '/purge', notice('info', 'Read-only dashboard: purging is turned off.'));
  }
  const queues = await ctx.tm.listQueues();
  const body = html`${error ? notice('error', error) : ''}
<p>Manual purge deletes finished jobs (and their checkpoints, signals and fires) that finished before a cutoff,
whatever their retention windows. In-flight jobs are never deleted, trees go whole, and jobs pinned by a live
unique lock stay.</p>
<form method="post" action="${href(ctx, '/purge/preview')}" class="card filters" id="purge-form">${csrfField(ctx)}
<label>queue<select name="queue"><option value="">all queues</option>${queues.map(
    (q) => html`<option value="${q.name}">${q.name}</option>`,
  )}</select></label>
<label>statuses<span>${FINISHED_STATUSES.map(
    (s) =>
      html`<label class="inline-check"><input type="checkbox" name="status" value="${s}" ${s !== 'completed' ? '' : 'checked'}> ${s}</label> `,
  )}</span></label>
<label>finished more than<select name="olderThanSeconds">${AGE_CHOICES.map(
    ([seconds, label]) =>
      html`<option value="${seconds}" ${seconds === 86_400 ? 'selected' : ''}>${label} ago</option>`,
  )}</select></label>
<label>or seconds<input type="number" name="olderThanCustom" min="0" step="1" placeholder="seconds"></label>
<button type="submit" class="primary">Count (dry run)</button>
</form>`;
  return layout(ctx, 'Purge', '/purge', body);
}

/** Step 2: the dry-run count, and a confirmation form that repeats the same request. */
export function purgeConfirmPage(ctx: DashboardContext, request: PurgeRequest, count: number): Html {
  const what = describe(request);
  const body =
    count === 0
      ? html`${notice('info', html`Nothing to purge: no ${what}.`)}<a href="${href(ctx, '/purge')}">Back</a>`
      : html`${notice('info', html`Dry run: <strong id="purge-count">${formatCount(count)}</strong> jobs would be deleted (${what}).`)}
<form method="post" action="${href(ctx, '/purge/confirm')}" id="purge-confirm">${csrfField(ctx)}
<input type="hidden" name="queue" value="${request.queue ?? ''}">
${request.statuses.map((s) => html`<input type="hidden" name="status" value="${s}">`)}
<input type="hidden" name="olderThanSeconds" value="${String(request.olderThanSeconds)}">
<input type="hidden" name="confirm" value="yes">
<button type="submit" class="danger">Delete these jobs</button> <a href="${href(ctx, '/purge')}">Cancel</a>
</form>`;
  return layout(ctx, 'Purge: confirm', '/purge', body);
}

/** Step 3: what was deleted. */
export function purgeDonePage(ctx: DashboardContext, request: PurgeRequest, deleted: number): Html {
  return layout(
    ctx,
    'Purge: done',
    '/purge',
    html`${notice('ok', html`Deleted <strong id="purge-deleted">${formatCount(deleted)}</strong> jobs (${describe(request)}).`)}
<a href="${href(ctx, '/purge')}">Purge more</a> · <a href="${href(ctx, '/')}">Queues</a>`,
  );
}

function describe(request: PurgeRequest): string {
  const queue = request.queue ? `queue ${request.queue}` : 'all queues';
  const age =
    request.olderThanSeconds > 0
      ? `finished more than ${formatSeconds(request.olderThanSeconds)} ago`
      : 'of any age';
  return `${request.statuses.join('/')} jobs of ${queue} ${age}`;
}
