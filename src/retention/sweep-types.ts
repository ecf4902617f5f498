import type { SweepBreakdown } from '../model/sweep.js';

export type { SweepBreakdown, SweepRecord } from '../model/sweep.js';

/** What `tm.sweep()` returns: rows deleted by one full retention pass. */
export interface SweepOutcome {
  /** Jobs deleted (tops and tree members; their checkpoints, signals and fires went with them). */
  jobs: number;
  /** Consumed signals deleted on their own window. */
  signals: number;
  /**
   * Log lines deleted on their own window (`logsAfterSeconds`), before their job; present
   * only when there were some.
   */
  logLines?: number;
  /** Audit rows deleted past the audit's window (`audit.retainDays`); present only when there were some. */
  auditRows?: number;
  /** Expired unique locks deleted. */
  uniqueLocks: number;
  /**
   * Callback tokens deleted past their expiry, never completed or cancelled (with the unique
   * locks); present only when there were some.
   */
  expiredTokens?: number;
  /** Jobs deleted per queue and status. */
  byQueue: SweepBreakdown[];
  /** Set when a batch failed (for example the archive hook threw); earlier batches stay deleted. */
  error?: string;
  /** Set when retention is paused cluster-wide: the pass deleted nothing (or stopped at the pause). */
  paused?: boolean;
}

/** What `tm.sweep({ dryRun: true })` returns: what a full pass would delete now. Nothing is deleted. */
export interface SweepPreview {
  dryRun: true;
  jobs: number;
  signals: number;
  /** Log lines past their own window; present only when there are some. */
  logLines?: number;
  uniqueLocks: number;
  byQueue: SweepBreakdown[];
  /** Set while retention is paused: the counts say what would go once resumed. */
  paused?: boolean;
}
