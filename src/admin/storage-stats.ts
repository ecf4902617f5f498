import type { EngineCore } from '../engine-core.js';
import { flushStats, type IndexStat, indexStats, type TableStat, tableStats } from '../storage/sql/admin.js';

export type { IndexStat, TableStat } from '../storage/sql/admin.js';

/** Sizes and row statistics of Tidemark's tables and indexes (pg_class, pg_stat_user_tables). */
export async function loadStorageStats(
  core: EngineCore,
): Promise<{ tables: TableStat[]; indexes: IndexStat[] }> {
  const storage = core.storage;
  if (storage.driver.kind === 'pglite') await storage.run(flushStats, {});
  const [tables, indexes] = await Promise.all([
    storage.run(tableStats, { schema: storage.schema }),
    storage.run(indexStats, { schema: storage.schema }),
  ]);
  return { tables, indexes };
}
