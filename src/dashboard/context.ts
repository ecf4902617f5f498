import type { EngineCore } from '../engine-core.js';
import type { AuditOptions } from '../model/audit.js';
import type { RetentionStatus } from '../retention/pause.js';
import type { DashboardEngine } from './engine-port.js';
import { type Html, html } from './html.js';

/** What a page or an action needs to know about the request it serves. */
export interface DashboardContext {
  tm: DashboardEngine;
  /** The engine behind `tm`, for the read models in src/admin. */
  core: EngineCore;
  /** Where the dashboard is mounted ('' at the root, '/tidemark' under a prefix). */
  base: string;
  /** The request URL, relative to the mount point. */
  url: URL;
  readOnly: boolean;
  /** The link template of a trace id (`{traceId}`), when one was given. */
  traceUrl: string | undefined;
  /** The CSRF token every form of this page posts back. */
  csrf: string;
  /** Whether the viewer logged in with the form (and so can log out). */
  loggedIn: boolean;
  /** Who acts, for the audit: the name of the token shown (or its login's), from the dashboard. */
  by: AuditOptions;
  /** The cluster-wide retention switch, read for every page so each one can show the pause. */
  retention: RetentionStatus;
}

/** A link inside the dashboard; query values are encoded, empty ones left out. */
export function href(
  ctx: DashboardContext,
  path: string,
  query: Record<string, string | undefined> = {},
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(key, value);
  const search = params.toString();
  return `${ctx.base}${path}${search ? `?${search}` : ''}`;
}

/**
 * A one-button POST form carrying the CSRF token. Rendered as nothing on a read-only
 * dashboard, so actions are hidden as well as refused.
 */
export function actionButton(
  ctx: DashboardContext,
  path: string,
  label: string,
  fields: Record<string, string> = {},
  style: 'plain' | 'danger' = 'plain',
): Html {
  if (ctx.readOnly) return html``;
  return html`<form method="post" action="${href(ctx, path)}" class="inline">
    <input type="hidden" name="csrf" value="${ctx.csrf}">${Object.entries(fields).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
    )}<button type="submit" class="${style}" data-action="${label.toLowerCase()}">${label}</button></form>`;
}

export function csrfField(ctx: DashboardContext): Html {
  return html`<input type="hidden" name="csrf" value="${ctx.csrf}">`;
}
