/** The dashboard's only stylesheet, served from /assets/style.css (the CSP allows no inline style). */
export const STYLE = `
:root { --fg:#1d2433; --muted:#5b6577; --line:#dde2ea; --bg:#f6f7fa; --card:#fff; --accent:#1f5fbf;
  --ok:#1f8a4c; --bad:#c2372b; --warn:#b7791f; --wait:#6b46c1; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg); background:var(--bg); }
header.top { background:#14213d; color:#fff; padding:0 24px; display:flex; align-items:center; gap:24px; height:52px; }
header.top .brand { font-weight:700; font-size:17px; letter-spacing:.3px; color:#fff; text-decoration:none; }
header.top nav a { color:#c9d4ea; text-decoration:none; margin-right:16px; padding:15px 0; border-bottom:3px solid transparent; }
header.top nav a.current { color:#fff; border-bottom-color:#7fb2ff; }
header.top .right { margin-left:auto; display:flex; gap:12px; align-items:center; font-size:12px; color:#c9d4ea; }
header.top .badge { background:#7a5b00; color:#fff; border-radius:3px; padding:2px 6px; }
main { padding:20px 24px 48px; max-width:1280px; }
h1 { font-size:20px; margin:4px 0 16px; }
h2 { font-size:15px; margin:24px 0 8px; color:#2c3548; }
a { color:var(--accent); }
.card { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:14px 16px; margin-bottom:16px; }
.card > h2:first-child { margin-top:0; }
table { border-collapse:collapse; width:100%; background:var(--card); border:1px solid var(--line); border-radius:6px; }
th, td { text-align:left; padding:6px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { background:#eef1f6; font-weight:600; font-size:12px; color:#3b4558; white-space:nowrap; }
td.num, th.num { text-align:right; font-variant-numeric: tabular-nums; }
tr:last-child td { border-bottom:none; }
.muted { color:var(--muted); }
.small { font-size:12px; }
.mono, pre, code { font-family:var(--mono); font-size:12.5px; }
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
input[type=text], input[type=number], input[type=password], input[type=datetime-local], select { font:inherit; padding:4px 6px; border:1px solid #b7c0cf; border-radius:4px; background:#fff; }
.notice { padding:10px 14px; border-radius:6px; margin-bottom:16px; border:1px solid; }
.notice.ok { background:#e2f4ea; border-color:#a8dbbd; }
.notice.error { background:#fbe5e3; border-color:#efb4ad; }
.notice.info { background:#e8f0fc; border-color:#b5cdf2; }
.notice.warn { background:#fff3c4; border-color:#e4c35a; }
.grid2 { display:grid; grid-template-columns: 1fr 1fr; gap:16px; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
dl.facts { display:grid; grid-template-columns: 170px 1fr; gap:4px 12px; margin:0; }
dl.facts dt { color:var(--muted); }
dl.facts dd { margin:0; }
ol.timeline { list-style:none; padding:0; margin:0; border-left:2px solid var(--line); }
ol.timeline li { position:relative; padding:2px 0 10px 16px; }
ol.timeline li::before { content:""; position:absolute; left:-6px; top:7px; width:10px; height:10px; border-radius:50%; background:#9aa5b8; }
ol.timeline li.ok::before { background:var(--ok); }
ol.timeline li.bad::before { background:var(--bad); }
ol.timeline li.run::before { background:var(--accent); }
ul.tree { list-style:none; padding-left:18px; margin:0; }
ul.tree > li { padding:2px 0; }
ul.fires { margin:0; padding-left:16px; }
.chart svg { display:block; width:100%; height:auto; }
.pager { display:flex; gap:16px; margin-top:10px; align-items:center; }
.actions { margin:8px 0 16px; }
.login { max-width:360px; margin:80px auto; }
.legend-ok { color:#2f9e61; } .legend-bad { color:#d2473b; } .legend-other { color:#9aa5b8; }
`;
