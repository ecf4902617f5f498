/**
 * The job page's live updates, served from /assets/live.js (the CSP allows scripts and
 * connections to the dashboard itself only). A page whose job is in flight carries
 * `#live[data-events]`; the script reads that stream (tm.subscribe as server-sent events) and
 * writes the status, progress and metadata into the page as text, never as markup. When the
 * job finishes (or is deleted) it loads the page once more, for the output, the attempts and
 * the log the stream does not carry. Without EventSource the page stays as it is.
 */
export const LIVE_SCRIPT = `'use strict';
(function () {
  var live = document.getElementById('live');
  if (!live || typeof EventSource !== 'function') return;
  var source = new EventSource(live.getAttribute('data-events'));
  var STATUS = /^[a-z]+$/;
  function text(tag, value, className) {
    var node = document.createElement(tag);
    node.textContent = value;
    if (className) node.className = className;
    return node;
  }
  function show(id, nodes) {
    var target = document.getElementById(id);
    if (!target) return;
    target.replaceChildren.apply(target, nodes);
  }
  function progress(value) {
    if (value === null) return [text('span', 'none reported', 'muted')];
    if (typeof value === 'number') {
      var bar = document.createElement('progress');
      bar.max = 100;
      bar.value = value;
      return [bar, document.createTextNode(' ' + value + '%')];
    }
    return [text('pre', JSON.stringify(value, null, 2), 'json')];
  }
  function metadata(value) {
    if (Object.keys(value).length === 0) return [text('p', 'No metadata.', 'muted')];
    return [text('h3', 'Metadata'), text('pre', JSON.stringify(value, null, 2), 'json')];
  }
  source.addEventListener('open', function () {
    live.hidden = false;
  });
  source.addEventListener('update', function (event) {
    var update = JSON.parse(event.data);
    var status = String(update.status);
    show('live-status', [text('span', status, STATUS.test(status) ? 'status status-' + status : 'status')]);
    show('live-progress', progress(update.progress));
    show('live-metadata', metadata(update.metadata));
  });
  function reload() {
    source.close();
    location.reload();
  }
  source.addEventListener('finished', reload);
  source.addEventListener('gone', reload);
})();
`;
