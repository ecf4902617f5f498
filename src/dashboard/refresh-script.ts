/**
 * The dashboard's only script, served from /assets/refresh.js (the CSP allows scripts from
 * the dashboard itself and nothing inline). A page includes it only while its URL carries
 * `refresh=N`; it then reloads the page every N seconds, but waits while the tab is hidden,
 * a form field has the focus or text is selected, so it never throws away what you are doing.
 */
export const REFRESH_SCRIPT = `'use strict';
(function () {
  var seconds = Number(new URLSearchParams(location.search).get('refresh'));
  if (!(seconds >= 2 && seconds <= 3600)) return;
  function busy() {
    var focused = document.activeElement;
    var editing = focused && /^(INPUT|SELECT|TEXTAREA)$/.test(focused.tagName);
    return document.hidden || editing || String(window.getSelection()) !== '';
  }
  function tick() {
    if (busy()) setTimeout(tick, 1000);
    else location.reload();
  }
  setTimeout(tick, seconds * 1000);
})();
`;
