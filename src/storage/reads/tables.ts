import type { Runner } from '../runner.js';
import { flushStats, type IndexStat, indexStats, type TableStat, tableStats } from '../sql/admin.js';

export type { IndexStat, TableStat } from '../sql/admin.js';

/** Sizes and row statistics of Tidemark's tables and indexes (pg_class, pg_stat_user_tables). */
export async function tableStatistics(db: Runner): Promise<{ tables: TableStat[]; indexes: IndexStat[] }> {
  // Embedded PGlite never goes idle, so its statistics are published only when asked.
  if (db.driver.kind === 'pglite') await db.run(flushStats, {});
  const [tables, indexes] = await Promise.all([
    db.run(tableStats, { schema: db.schema }),
    db.run(indexStats, { schema: db.schema }),
  ]);
  return { tables, indexes };
}
