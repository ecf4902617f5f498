import { formatCount, formatTime } from '../../admin/format.js';
import type { KeyInfo } from '../../model/keys.js';
import { LIST_KEYS_DEFAULT_LIMIT } from '../../queues/key-settings.js';
import { actionButton, csrfField, type DashboardContext, href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout } from '../layout.js';

/** Keys shown per page: listKeys' own default page. */
const PAGE = LIST_KEYS_DEFAULT_LIMIT;

/**
 * A queue's concurrency keys (`/queues/<name>/keys`): the busiest first, or only the blocked
 * ones (`?blocked=1`), paged by key (`?after=`), with pause, resume and limit overrides.
 */
export async function keysPage(ctx: DashboardContext, queue: string): Promise<Html> {
  const blocked = ctx.url.searchParams.get('blocked') === '1';
  const after = ctx.url.searchParams.get('after') ?? undefined;
  const keys = await ctx.tm.listKeys(queue, { blocked, limit: PAGE, after });
  const busiest = [...keys].sort((a, b) => b.active - a.active || b.pending - a.pending);
  const path = `/queues/${encodeURIComponent(queue)}/keys`;
  const next = keys.length === PAGE ? keys[keys.length - 1].key : undefined;
  const saved = ctx.url.searchParams.get('saved');
  const body = html`${saved ? html`<p class="notice" id="key-saved">Saved: ${saved}.</p>` : ''}
<p><a href="${href(ctx, `/queues/${encodeURIComponent(queue)}`)}">queue ${queue}</a> ·
${blocked ? html`<a href="${href(ctx, path)}">all keys</a>` : html`<a href="${href(ctx, path, { blocked: '1' })}" id="blocked-only">blocked keys only</a>`}</p>
<table class="keys"><thead><tr><th>key</th><th>tier</th><th class="num">running</th><th class="num">pending</th>
<th class="num">limit</th><th>state</th><th>oldest pending</th><th></th></tr></thead><tbody>
${
  busiest.length === 0
    ? html`<tr><td colspan="8" class="muted">${blocked ? 'No key is blocked.' : 'No key has unfinished jobs or settings.'}</td></tr>`
    : busiest.map((key) => row(ctx, queue, key))
}
</tbody></table>
${next === undefined ? '' : html`<p><a href="${href(ctx, path, { blocked: blocked ? '1' : undefined, after: next })}" id="next-page">next ${PAGE} keys</a></p>`}
<p class="small muted">Busiest first on this page (running, then pending). A key is blocked when it has pending jobs that
cannot start now: paused, or running at its limit. A limit set here replaces the queue's rule for that key until cleared,
across the cluster. See flow-control.md.</p>`;
  return layout(ctx, `Keys of ${queue}`, '/', body);
}

function row(ctx: DashboardContext, queue: string, key: KeyInfo): Html {
  const at = `/queues/${encodeURIComponent(queue)}/keys`;
  const fields = { queue, key: key.key };
  const blocked = key.pending > 0 && (key.paused || (key.limit !== null && key.active >= key.limit));
  return html`<tr data-key="${key.key}"><td class="mono">${key.key}</td><td>${key.tier ?? ''}</td>
<td class="num">${formatCount(key.active)}</td><td class="num">${formatCount(key.pending)}</td>
<td class="num">${key.limit === null ? html`<span class="muted">none</span>` : formatCount(key.limit)}</td>
<td>${key.paused ? html`<span class="status status-paused">paused</span>` : blocked ? html`<span class="status status-blocked">at limit</span>` : ''}</td>
<td class="small">${formatTime(key.oldestPendingAt)}</td>
<td class="small">${key.paused ? actionButton(ctx, `${at}/resume`, 'Resume', fields) : actionButton(ctx, `${at}/pause`, 'Pause', fields)}
${limitForm(ctx, `${at}/limit`, fields)}</td></tr>`;
}

/** Set a key's limit (a number) or clear it (empty). */
function limitForm(ctx: DashboardContext, path: string, fields: { queue: string; key: string }): Html {
  if (ctx.readOnly) return html``;
  return html`<form method="post" action="${href(ctx, path)}" class="inline">${csrfField(ctx)}
<input type="hidden" name="queue" value="${fields.queue}"><input type="hidden" name="key" value="${fields.key}">
<input type="number" name="concurrency" min="1" max="100000" placeholder="limit" aria-label="limit for ${fields.key}">
<button type="submit" data-action="set-limit">Set limit</button></form>`;
}
