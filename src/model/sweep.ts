/** Rows deleted (or, for a dry run, due) in one queue and status. */
export interface SweepBreakdown {
  queue: string;
  status: string;
  count: number;
}

/** One finished sweep, as `tm.listSweeps()` returns it (newest first). */
export interface SweepRecord {
  id: string;
  /** `retention` (jobs, consumed signals; with unique locks when run by `tm.sweep()`) or `unique-locks`. */
  kind: 'retention' | 'unique-locks';
  startedAt: Date;
  finishedAt: Date;
  jobs: number;
  signals: number;
  /** Log lines deleted on their own window (`logsAfterSeconds`); present only when there were some. */
  logLines?: number;
  uniqueLocks: number;
  byQueue: SweepBreakdown[];
  /** Delete statements run for jobs. */
  batches: number;
  durationMs: number;
  /** Why the sweep stopped early, or null. */
  error: string | null;
  /** Retention was paused cluster-wide: the sweep deleted nothing (or stopped at the pause). */
  paused: boolean;
}
