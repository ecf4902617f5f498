/** The dashboard's only stylesheet, served from /assets/style.css (the CSP allows no inline style). */
export const STYLE = `
:root { --fg:#1d2433; --muted:#5b6577; --line:#dde2ea; --bg:#f6f7fa; --card:#fff; --accent:#1f5fbf;
  --ok:#1f8a4c; --bad:#c2372b; --warn:#b7791f; --wait:#6b46c1; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header.top { background:#14213d; color:#fff; padding:0 24px; display:flex; flex-wrap:wrap; align-items:center; column-gap:24px; min-height:52px; }
header.top .brand { font-weight:700; font-size:17px; letter-spacing:.3px; color:#fff; text-decoration:none; }
header.top nav { display:flex; flex-wrap:wrap; column-gap:16px; }
header.top nav a { color:#c9d4ea; text-decoration:none; padding:15px 0 12px; border-bottom:3px solid transparent; }
header.top nav a.current { color:#fff; border-bottom-color:#7fb2ff; }
header.top .right { margin-left:auto; display:flex; flex-wrap:wrap; gap:6px 12px; align-items:center; font-size:12px; color:#c9d4ea; min-width:0; overflow-wrap:anywhere; padding:6px 0; }
header.top .badge { background:#7a5b00; color:#fff; border-radius:3px; padding:2px 6px; }
main { padding:20px 24px 48px; max-width:1280px; overflow-wrap:break-word; }
h1 { font-size:20px; margin:4px 0 16px; }
h2 { font-size:15px; margin:24px 0 8px; color:#2c3548; }
a { color:var(--accent); }
.card { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:14px 16px; margin-bottom:16px; }
.card > h2:first-child { margin-top:0; }
.scroll { overflow-x:auto; max-width:100%; }
.scroll > table { margin:0; }
table { border-collapse:collapse; width:100%; background:var(--card); border:1px solid var(--line); border-radius:6px; }
th, td { text-align:left; padding:6px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
/* A cell breaks a word only when the word alone is wider than the column can be (a URL, a
   hash): names and numbers stay whole and the table scrolls in its box. Data and errors,
   opaque text, may break anywhere, in a column wide enough for their ordinary words. */
td { overflow-wrap:break-word; }
td.blob:not(.num) { overflow-wrap:anywhere; min-width:24em; }
td:not(.num) { min-width:5em; }
/* The first column names the row (a queue, a table, a checkpoint): keep it readable when squeezed. */
td:first-child:not(.num) { min-width:9em; }
td.num, td.nowrap, .status, td button, td a.button { white-space:nowrap; overflow-wrap:normal; }
th { background:#eef1f6; font-weight:600; font-size:12px; color:#3b4558; white-space:nowrap; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
tr:last-child td { border-bottom:none; }
.muted { color:var(--muted); }
.small { font-size:12px; }
.mono, pre, code { font-family:var(--mono); font-size:12.5px; }
.tag { display:inline-block; padding:1px 6px; border:1px solid var(--line); border-radius:10px; }
pre { max-width:100%; overflow:auto; }
pre.json, pre.stack { background:#f3f5f9; border:1px solid var(--line); padding:10px; border-radius:4px; overflow:auto; max-height:420px; margin:0; white-space:pre-wrap; word-break:break-word; }
pre.stack { background:#fff5f4; border-color:#f1c9c5; }
.status { display:inline-block; padding:1px 7px; border-radius:10px; font-size:12px; font-weight:600; background:#e6e9ef; color:#39424f; }
.status-completed { background:#e2f4ea; color:var(--ok); }
.status-failed { background:#fbe5e3; color:var(--bad); }
.status-active { background:#e3edfb; color:var(--accent); }
.status-retry { background:#fdf1dc; color:var(--warn); }
.status-waiting { background:#efe8fb; color:var(--wait); }
.status-paused { background:#fff3c4; color:#7a5b00; }
.status-cancelled, .status-expired { background:#eceef2; color:#5b6577; }
.status-live { background:#e2f4ea; color:var(--ok); }
.status-gone { background:#fbe5e3; color:var(--bad); }
.carried .differs { color:var(--bad); }
.paused-flag { color:#7a5b00; font-weight:600; }
form.inline { display:inline; margin:0 4px 0 0; }
button, a.button { font:inherit; text-decoration:none; color:inherit; display:inline-block; font-size:13px; padding:4px 10px; border-radius:4px; border:1px solid #b7c0cf; background:#fff; cursor:pointer; }
button:hover, a.button:hover { background:#eef3fb; }
button.danger, a.button.danger { border-color:#d9a09a; color:var(--bad); }
button.danger:hover { background:#fbe5e3; }
button.primary { background:var(--accent); color:#fff; border-color:var(--accent); }
.filters { display:flex; flex-wrap:wrap; gap:10px; align-items:flex-end; }
.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); gap:3px; }
.filters label.inline-check { display:inline-flex; flex-direction:row; color:var(--fg); font-size:13px; gap:4px; margin-right:8px; }
input[type=text], input[type=number], input[type=password], input[type=datetime-local], select { max-width:100%; font:inherit; padding:4px 6px; border:1px solid #b7c0cf; border-radius:4px; background:#fff; }
.notice { padding:10px 14px; border-radius:6px; margin-bottom:16px; border:1px solid; }
.notice.ok { background:#e2f4ea; border-color:#a8dbbd; }
.notice.error { background:#fbe5e3; border-color:#efb4ad; }
.notice.info { background:#e8f0fc; border-color:#b5cdf2; }
.notice.warn { background:#fff3c4; border-color:#e4c35a; }
.grid2 { display:grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap:16px; }
.grid2 > * { min-width:0; }
@media (max-width: 900px) { .grid2 { grid-template-columns: minmax(0, 1fr); } }
dl.facts { display:grid; grid-template-columns: minmax(0, 170px) minmax(0, 1fr); gap:4px 12px; margin:0; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; overflow-wrap:anywhere; }
ol.timeline { list-style:none; padding:0; margin:0; border-left:2px solid var(--line); }
ol.timeline li { position:relative; padding:2px 0 10px 16px; }
ol.timeline li::before { content:""; position:absolute; left:-6px; top:7px; width:10px; height:10px; border-radius:50%; background:#9aa5b8; }
ol.timeline li.ok::before { background:var(--ok); }
ol.timeline li.bad::before { background:var(--bad); }
ol.timeline li.run::before { background:var(--accent); }
ul.tree { list-style:none; padding-left:18px; margin:0; }
ul.tree > li { padding:2px 0; }
ul.tree ul { list-style:none; padding-left:22px; margin:0; border-left:1px dashed var(--line); }
ul.tree li.current > .node { background:#fff3c4; border-radius:4px; padding:0 4px; font-weight:600; }
form.signal-form { display:flex; flex-direction:column; gap:8px; max-width:560px; }
form.signal-form label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); gap:3px; }
form.signal-form textarea { font-family:var(--mono); font-size:12.5px; padding:4px 6px; border:1px solid #b7c0cf; border-radius:4px; }
ul.fires { margin:0; padding-left:16px; }
.chart svg { display:block; width:100%; height:auto; }
.pager { display:flex; gap:16px; margin-top:10px; align-items:center; }
.actions { margin:8px 0 16px; }
.login { max-width:360px; margin:80px auto; }
/* Phones: tighter margins; a wide table keeps a readable width and scrolls in its box; a table
   no page wrapped in a scroll box becomes one itself. */
@media (max-width: 640px) {
  header.top { padding:0 12px; column-gap:16px; }
  header.top nav { column-gap:12px; }
  header.top nav a { padding:10px 0 7px; }
  main { padding:14px 12px 40px; }
  .card { padding:12px; }
  dl.facts { grid-template-columns: minmax(0, 100px) minmax(0, 1fr); }
  .scroll > table { min-width:720px; }
  main table:not(.scroll > table) { display:block; overflow-x:auto; }
  .login { margin:32px auto; }
}
.legend-ok { color:#2f9e61; } .legend-bad { color:#d2473b; } .legend-other { color:#9aa5b8; }
.legend-run { color:#1f5fbf; } .legend-wait { color:#6b46c1; }
.legend-p50 { color:#1f5fbf; }
.chart .axis { display:flex; justify-content:space-between; }
/* A chart (chart-frame.ts): the SVG stretches to the width at a fixed 150 px height; the y labels
   sit on its grid lines at 8, 78 and 148 px (12 px lines, spread end to end), all text in HTML at 11 px. */
.plot { display:grid; grid-template-columns:max-content minmax(0, 1fr); column-gap:6px; align-items:start; }
.chart .plot svg { width:100%; height:150px; }
.plot .y-axis { display:flex; flex-direction:column; justify-content:space-between; height:154px; padding-top:2px; text-align:right; }
.plot .x-axis { grid-column:2; display:flex; justify-content:space-between; gap:8px; margin-top:4px; }
.plot .y-axis, .plot .x-axis { font-size:11px; line-height:12px; color:var(--muted); white-space:nowrap; }
.legend { margin-top:4px; }
details.chart-values { margin-top:6px; font-size:12px; }
details.chart-values summary { cursor:pointer; color:var(--accent); }
details.chart-values table { margin-top:6px; }
details.chart-values .scroll > table { min-width:0; width:auto; }
/* The step timeline is drawn 960 units wide with its labels in the SVG: never narrower, so its
   11 px labels stay 11 px; on a phone its card scrolls sideways. */
.chart:has(> #step-timeline) { overflow-x:auto; }
#step-timeline { min-width:960px; }
td.when { white-space:nowrap; overflow-wrap:normal; }
.counts-row { display:flex; flex-wrap:wrap; gap:8px 20px; margin:0 0 16px; padding:0; list-style:none; }
.counts-row li { display:flex; flex-direction:column; min-width:5.5em; }
.counts-row .n { font-size:18px; font-weight:600; font-variant-numeric: tabular-nums; white-space:nowrap; }
.counts-row .what { font-size:12px; color:var(--muted); white-space:nowrap; }
.windows a.current { font-weight:700; color:var(--fg); text-decoration:none; }
`;
