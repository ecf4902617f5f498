import { formatBytes, formatCount, formatTime } from '../../admin/format.js';
import { loadStorageStats } from '../../admin/storage-stats.js';
import type { DashboardContext } from '../context.js';
import { type Html, html } from '../html.js';
import { layout, notice } from '../layout.js';

/** Table and index sizes, live and dead rows, last (auto)vacuum and analyze. */
export async function storagePage(ctx: DashboardContext): Promise<Html> {
  const { tables, indexes } = await loadStorageStats(ctx.core);
  const pglite = ctx.tm.driverKind === 'pglite';
  const body = html`${pglite ? pgliteNotice() : ''}
<div class="scroll"><table class="tables"><thead><tr><th>table</th><th class="num">total</th><th class="num">table</th><th class="num">indexes</th>
<th class="num">live rows</th><th class="num">dead rows</th><th class="num">dead %</th><th>last vacuum</th><th>last analyze</th></tr></thead><tbody>
${tables.map((t) => {
  const live = Number(t.live_rows ?? 0);
  const dead = Number(t.dead_rows ?? 0);
  const share = live + dead > 0 ? (100 * dead) / (live + dead) : 0;
  return html`<tr data-table="${t.name}"><td class="mono">${t.name}</td><td class="num">${formatBytes(Number(t.total_bytes))}</td>
<td class="num">${formatBytes(Number(t.table_bytes))}</td><td class="num">${formatBytes(Number(t.index_bytes))}</td>
<td class="num">${formatCount(t.live_rows)}</td><td class="num">${formatCount(t.dead_rows)}</td><td class="num">${share.toFixed(1)}</td>
<td class="small">${vacuumCell(t.last_autovacuum, t.last_vacuum)}</td><td class="small">${vacuumCell(t.last_autoanalyze, t.last_analyze)}</td></tr>`;
})}
</tbody></table></div>
<p class="small muted">From pg_class and pg_stat_user_tables for schema ${ctx.tm.schema}.${
    pglite ? ' Embedded PGlite runs no autovacuum daemon: dead rows go away when the engine vacuums.' : ''
  }</p>
<h2>Indexes</h2>
<div class="scroll"><table class="indexes"><thead><tr><th>index</th><th>table</th><th class="num">size</th><th class="num">scans</th></tr></thead><tbody>
${indexes.map(
  (i) =>
    html`<tr><td class="mono">${i.name}</td><td class="mono">${i.table_name}</td><td class="num">${formatBytes(Number(i.bytes))}</td><td class="num">${formatCount(i.scans)}</td></tr>`,
)}
</tbody></table></div>`;
  return layout(ctx, 'Storage', '/storage', body);
}

/**
 * What the statistics mean on embedded PGlite: its statistics collector starts empty at each
 * open, so row and scan counts are of this open only; the sizes are read from the files.
 */
function pgliteNotice(): Html {
  return notice(
    'info',
    html`<span id="pglite-statistics">Embedded PGlite keeps no statistics across opens: <strong>live rows</strong>,
<strong>dead rows</strong>, <strong>scans</strong> and the vacuum and analyze times count from when this process
opened the database (rows written before it show as 0), and there is no autovacuum. The sizes are exact: they
are read from the database files.</span>`,
  );
}

function vacuumCell(auto: Date | null, manual: Date | null): Html {
  if (!auto && !manual) return html`<span class="muted">never</span>`;
  return html`${auto ? html`auto ${formatTime(auto)}` : ''}${auto && manual ? html`<br>` : ''}${manual ? html`manual ${formatTime(manual)}` : ''}`;
}
