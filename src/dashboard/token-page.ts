import { type Html, html } from './html.js';

/** What the token handler says, as a page of its own (no dashboard frame, no login). */
export function tokenPage(title: string, message: string, form?: { action: string }): string {
  const body: Html = form
    ? html`<form method="post" action="${form.action}"><button type="submit">Confirm</button></form>`
    : html``;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
</head><body>
<main><h1>${title}</h1>
<p>${message}</p>
${body}
</main></body></html>`.text;
}

/** The confirm page: a GET (a mail client's or chat's link preview) completes nothing. */
export function confirmPage(action: string, carriesPayload: boolean): string {
  const what = carriesPayload
    ? 'This link completes a waiting task with the answer it carries.'
    : 'This link completes a waiting task.';
  return tokenPage('Confirm', `${what} Nothing happens until you confirm.`, { action });
}
