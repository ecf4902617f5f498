import type { DashboardContext } from '../context.js';
import { href } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice } from '../layout.js';

/** A refusal or failure, with its message escaped and a way back. */
export function errorPage(ctx: DashboardContext, title: string, message: string, back?: string): Html {
  return layout(
    ctx,
    title,
    '',
    html`${notice('error', message)}<p><a href="${back ?? href(ctx, '/')}">Back</a></p>`,
  );
}
