import { type DashboardContext, href } from './context.js';
import { type Html, html } from './html.js';
import { notice } from './layout.js';

/** The interval the toggle turns on, in seconds. */
export const REFRESH_DEFAULT = 5;
const REFRESH_MIN = 2;
const REFRESH_MAX = 3600;

/** `?refresh=N` of the request: seconds, null when absent, or 'invalid'. */
export function refreshSeconds(ctx: DashboardContext): number | null | 'invalid' {
  const raw = ctx.url.searchParams.get('refresh');
  if (raw === null || raw === '') return null;
  if (!/^[0-9]{1,4}$/.test(raw)) return 'invalid';
  const seconds = Number(raw);
  return seconds >= REFRESH_MIN && seconds <= REFRESH_MAX ? seconds : 'invalid';
}

/** This page's URL with `refresh` set to a value, or removed; every other parameter kept. */
function withRefresh(ctx: DashboardContext, seconds: number | null): string {
  const params = new URLSearchParams(ctx.url.searchParams);
  params.delete('refresh');
  if (seconds !== null) params.set('refresh', String(seconds));
  const search = params.toString();
  return `${href(ctx, ctx.url.pathname)}${search ? `?${search}` : ''}`;
}

/**
 * The live-refresh switch of a list page: a plain link that adds or removes `refresh=5`
 * (so it is remembered in the URL and works as a link without script), and, while on, the
 * script that reloads the page. Off by default; a bad value is named and leaves it off.
 */
export function refreshToggle(ctx: DashboardContext): Html {
  const seconds = refreshSeconds(ctx);
  if (seconds === null || seconds === 'invalid') {
    const problem =
      seconds === 'invalid'
        ? notice(
            'error',
            `refresh: expected a whole number of seconds from ${REFRESH_MIN} to ${REFRESH_MAX}; live refresh is off`,
          )
        : '';
    return html`${problem}<p class="refresh small muted" id="live-refresh">Live refresh: off ·
<a href="${withRefresh(ctx, REFRESH_DEFAULT)}" data-refresh="on">every ${REFRESH_DEFAULT} s</a></p>`;
  }
  return html`<p class="refresh small" id="live-refresh">Live refresh: <strong>every ${seconds} s</strong> ·
<a href="${withRefresh(ctx, null)}" data-refresh="off">stop</a></p>
<script src="${href(ctx, '/assets/refresh.js')}" defer></script>`;
}
