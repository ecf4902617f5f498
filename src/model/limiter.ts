/**
 * Rate limiters: named token buckets in the database, shared by every queue and process that
 * names them. See flow-control.md, *Rate limits*.
 */

/** What `tm.defineLimiter(name, options)` takes. */
export interface LimiterOptions {
  /** Tokens per period: jobs of cost 1 started per `periodSeconds`, at most (1 to 1,000,000). */
  limit: number;
  /** The period, in seconds (more than 0, at most a year). */
  periodSeconds: number;
  /**
   * Tokens a full bucket holds beyond one: so many more jobs may start at once after a quiet
   * spell, and any span of one period starts at most `limit + burst` (0 to 1,000,000; default 0,
   * which spaces starts evenly).
   */
  burst?: number;
}

/** One limiter of a queue's `limiters` option. */
export interface QueueLimiter<Data = unknown> {
  /** The limiter's name, as given to `tm.defineLimiter`. */
  name: string;
  /** A bucket per key: the job's key for this limiter (a string of at most 512 characters). */
  key?: (data: Data) => string;
  /** Tokens the job takes (a whole number, 0 or more; default 1). */
  cost?: (data: Data) => number;
}

/** How a queue's `limiters` option is stored: names, and whether each is keyed or costed. */
export interface StoredQueueLimiter {
  name: string;
  keyed: boolean;
  costed: boolean;
}

/** One bucket a claimed job takes tokens from. */
export interface LimiterEntry {
  name: string;
  /** '' for a limiter the queue names without `key`. */
  key: string;
  cost: number;
}

/** A limiter as `tm.listLimiters` shows it. */
export interface LimiterInfo {
  name: string;
  limit: number;
  periodSeconds: number;
  burst: number;
  /** Seconds between two tokens: the period over the limit, plus a small guard (see flow-control.md). */
  spacingSeconds: number;
  /** Buckets that are not full now: keys in use. */
  busyBuckets: number;
  /** Jobs the limiter held back that wait for their turn. */
  waiting: number;
}

/** What `tm.limiterStatus(name, { key })` returns: one bucket now. */
export interface LimiterStatus extends LimiterInfo {
  /** The bucket's key ('' for a limiter used without one). */
  key: string;
  /** Whole tokens in the bucket now (at most `burst + 1`). */
  tokens: number;
  /** The most tokens the bucket holds: `burst + 1`. */
  capacity: number;
  /** When the next token comes; null when the bucket is full. */
  nextTokenAt: Date | null;
  /** When the bucket is full again; null when it is full now. */
  fullAt: Date | null;
}
