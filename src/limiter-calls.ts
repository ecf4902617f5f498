import { KeyCalls } from './key-calls.js';
import type { LimiterInfo, LimiterOptions, LimiterStatus } from './model/limiter.js';
import {
  defineLimiter,
  deleteLimiter,
  type LimiterStatusOptions,
  limiterStatus,
  listLimiters,
} from './queues/limiters.js';

/**
 * The rate-limit calls of the Tidemark engine: limiters, token buckets in the database that
 * queues name in their `limiters` option. `Tidemark` extends it; see flow-control.md.
 */
export abstract class LimiterCalls extends KeyCalls {
  /**
   * Define a limiter, or change one: `limit` tokens per `periodSeconds`, with `burst` more a full
   * bucket may hold. Shared by every queue and process that names it; persisted.
   */
  async defineLimiter(name: string, options: LimiterOptions): Promise<void> {
    return this.whenReady((core) => defineLimiter(core, name, options));
  }

  /** Delete a limiter and its buckets; false when it did not exist. */
  async deleteLimiter(name: string): Promise<boolean> {
    return this.whenReady((core) => deleteLimiter(core, name));
  }

  /**
   * One bucket of a limiter now: its tokens, when the next one comes, and the jobs it holds
   * back. `key` picks the bucket of a limiter a queue names with `key`.
   */
  async limiterStatus(name: string, options?: LimiterStatusOptions): Promise<LimiterStatus> {
    return this.whenReady((core) => limiterStatus(core, name, options));
  }

  /** Every limiter, by name, with its busy buckets and the jobs it holds back. */
  async listLimiters(): Promise<LimiterInfo[]> {
    return this.whenReady((core) => listLimiters(core));
  }
}
