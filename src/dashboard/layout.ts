import { formatTime } from '../admin/format.js';
import { type DashboardContext, href } from './context.js';
import { type Html, type HtmlValue, html } from './html.js';

const NAV: { path: string; label: string }[] = [
  { path: '/', label: 'Queues' },
  { path: '/jobs', label: 'Jobs' },
  { path: '/running', label: 'Running' },
  { path: '/schedules', label: 'Schedules' },
  { path: '/retention', label: 'Retention' },
  { path: '/purge', label: 'Purge' },
  { path: '/storage', label: 'Storage' },
  { path: '/workers', label: 'Workers' },
  { path: '/audit', label: 'Audit' },
];

/** The page frame: navigation, the read-only badge, logout, and the body. */
export function layout(ctx: DashboardContext, title: string, current: string, body: HtmlValue): Html {
  const { tm } = ctx;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Tidemark</title>
<link rel="stylesheet" href="${href(ctx, '/assets/style.css')}">
</head><body>
<header class="top"><a class="brand" href="${href(ctx, '/')}">Tidemark</a>
<nav>${NAV.map(
    (item) =>
      html`<a href="${href(ctx, item.path)}" class="${item.path === current ? 'current' : ''}">${item.label}</a>`,
  )}</nav>
<div class="right">${ctx.readOnly ? html`<span class="badge">read-only</span>` : ''}
<span>schema <span class="mono">${tm.schema}</span> · ${tm.driverKind}</span>${
    ctx.loggedIn
      ? html`<form method="post" action="${href(ctx, '/logout')}" class="inline"><input type="hidden" name="csrf" value="${ctx.csrf}"><button type="submit">Log out</button></form>`
      : ''
  }</div></header>
<main><h1>${title}</h1>
${pausedBanner(ctx)}${body}
</main></body></html>`;
}

/** On every page while retention is paused cluster-wide: since when, by whom, why. */
function pausedBanner(ctx: DashboardContext): Html | '' {
  const { retention } = ctx;
  if (!retention.paused) return '';
  return html`<div class="notice warn" role="status" id="retention-paused"><strong>Retention is paused</strong>
cluster-wide${retention.since ? html` since ${formatTime(retention.since)}` : ''}${retention.pausedBy ? html` by <span class="mono">${retention.pausedBy}</span>` : ''}:
${retention.reason ?? ''}. No sweep deletes anything and purges are refused until it is resumed on the
<a href="${href(ctx, '/retention')}">Retention</a> page.</div>`;
}

/** A page with no navigation (login, errors before authentication). */
export function barePage(base: string, title: string, body: HtmlValue): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Tidemark</title>
<link rel="stylesheet" href="${base}/assets/style.css">
</head><body><main class="login"><h1>${title}</h1>${body}</main></body></html>`;
}

export function statusBadge(status: string): Html {
  return html`<span class="status status-${status}">${status}</span>`;
}

export function notice(kind: 'ok' | 'error' | 'info' | 'warn', message: HtmlValue): Html {
  return html`<div class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${message}</div>`;
}
