import type { EngineCore } from '../engine-core.js';
import type { IndexStat, TableStat } from '../storage/storage.js';

export type { IndexStat, TableStat } from '../storage/storage.js';

/** Sizes and row statistics of Tidemark's tables and indexes (pg_class, pg_stat_user_tables). */
export function loadStorageStats(core: EngineCore): Promise<{ tables: TableStat[]; indexes: IndexStat[] }> {
  return core.storage.reads.tableStatistics();
}
