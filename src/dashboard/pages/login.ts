import { type Html, html } from '../html.js';
import { barePage, notice } from '../layout.js';

/**
 * The token form. A successful login sets an HttpOnly, SameSite=Strict session cookie and
 * returns to `next` (already checked to be a page of this dashboard).
 */
export function loginPage(base: string, csrf: string, next: string, problem?: string): Html {
  return barePage(
    base,
    'Tidemark',
    html`${problem ? notice('error', problem) : ''}
<form method="post" action="${base}/login" class="card" id="login-form">
<input type="hidden" name="csrf" value="${csrf}">${next !== `${base}/` ? html`<input type="hidden" name="next" value="${next}">` : ''}
<p><label>Dashboard token<br><input type="password" name="token" autocomplete="current-password" autofocus required></label></p>
<button type="submit" class="primary">Log in</button></form>`,
  );
}
