import type { EngineCore } from '../engine-core.js';
import { flushStats, indexStats, tableStats } from '../storage/sql/admin.js';

export interface TableStat {
  name: string;
  total_bytes: number;
  table_bytes: number;
  index_bytes: number;
  estimated_rows: number;
  live_rows: number | null;
  dead_rows: number | null;
  last_vacuum: Date | null;
  last_autovacuum: Date | null;
  last_analyze: Date | null;
  last_autoanalyze: Date | null;
}

export interface IndexStat {
  name: string;
  table_name: string;
  bytes: number;
  scans: number | null;
}

/** Sizes and row statistics of Tidemark's tables and indexes (pg_class, pg_stat_user_tables). */
export async function loadStorageStats(
  core: EngineCore,
): Promise<{ tables: TableStat[]; indexes: IndexStat[] }> {
  const storage = core.storage;
  if (storage.driver.kind === 'pglite') await storage.run(flushStats, {});
  const [tables, indexes] = await Promise.all([
    storage.run<{ schema: string }, TableStat>(tableStats, { schema: storage.schema }),
    storage.run<{ schema: string }, IndexStat>(indexStats, { schema: storage.schema }),
  ]);
  return { tables, indexes };
}
