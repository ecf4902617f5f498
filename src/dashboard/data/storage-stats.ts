import { flushStats, indexStats, tableStats } from '../../storage/sql/dashboard.js';
import type { Tidemark } from '../../tidemark.js';

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
export async function loadStorageStats(tm: Tidemark): Promise<{ tables: TableStat[]; indexes: IndexStat[] }> {
  const storage = tm.internals.storage;
  if (tm.driverKind === 'pglite') await storage.run(flushStats, {});
  const [tables, indexes] = await Promise.all([
    storage.run<{ schema: string }, TableStat>(tableStats, { schema: tm.schema }),
    storage.run<{ schema: string }, IndexStat>(indexStats, { schema: tm.schema }),
  ]);
  return { tables, indexes };
}
