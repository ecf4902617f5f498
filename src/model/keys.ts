/**
 * Flow control by key: the rule a queue gives its jobs' concurrency keys, as `createQueue`
 * takes it and as it is stored (`queues.options.keys`), where every claim reads it.
 */

/** The most jobs of one key (or one queue) that may run at once. */
export const MAX_KEY_CONCURRENCY = 100_000;

/** `createQueue({ keys })`: how the jobs of each concurrency key are limited and ordered. */
export interface KeysOptions {
  /**
   * At most this many jobs of one key run at once, across the cluster: a number for every
   * key, or a default with a limit per tier (a job's `tier` picks its limit).
   */
  concurrency: number | { default: number; tiers?: Record<string, number> };
  /**
   * `'priority'` (the default): a key's jobs start by priority, then run time. `'fifo'`:
   * in the order they were added; a job starts only among its key's first `concurrency`
   * unfinished jobs, so with concurrency 1 job n+1 never starts before job n has finished.
   */
  order?: 'fifo' | 'priority';
  /**
   * `'round-robin'`: each claim serves the keys that run the fewest jobs first, so a key
   * with a deep backlog delays another key's job by at most about one claim round. With
   * `weights`, a key is served in proportion to its weight (keys not named weigh 1).
   */
  fairness?: 'round-robin' | { weights: Record<string, number> };
}

/** The rule as stored and read by the claim (flow_candidates in migration 7). */
export interface StoredKeysRule {
  /** The default limit per key. */
  concurrency: number;
  /** Limits by tier; a job whose tier is not here runs under `concurrency`. */
  tiers: Record<string, number>;
  order: 'priority' | 'fifo';
  /** Whether claims order keys by (running + rank) / weight. */
  fair: boolean;
  weights: Record<string, number>;
}

/** A key's persisted override, as `setKeyLimit` takes it. */
export interface KeyLimit {
  /** At most this many of the key's jobs run at once; replaces the queue's rule for the key. */
  concurrency: number;
}

/** A row of `tm.listKeys`. */
export interface KeyInfo {
  key: string;
  /** The tier of the key's newest unfinished job, or null. */
  tier: string | null;
  /** Jobs of the key running now (claimed and not finished). */
  active: number;
  /** Jobs of the key waiting to start (pending or waiting to retry). */
  pending: number;
  /** The limit the key runs under now: its override, else its tier's, else the queue's; null for none. */
  limit: number | null;
  paused: boolean;
  /** Run time of the key's oldest pending job, or null. */
  oldestPendingAt: Date | null;
}
