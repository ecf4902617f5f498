import { QueueNotFoundError } from '../errors.js';
import type { FrozenRetention } from '../model/job.js';
import type { Queryable, Storage } from '../storage/storage.js';
import { DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS, type ResolvedQueue, storedOptions } from './queue-options.js';

/**
 * Queues known to this process. A queue created here is written to the `queues` table
 * (in the background; every database call waits for pending writes first), so producers,
 * the CLI and the dashboard in other processes see its options without its handler.
 */
export class QueueRegistry {
  private readonly local = new Map<string, ResolvedQueue>();
  private readonly remote = new Map<string, ResolvedQueue>();
  private pending: Promise<unknown> = Promise.resolve();
  private failure: unknown = null;

  /**
   * @param engineRetention the engine's policy, stored beside each queue defined here: what a
   * job added in SQL freezes when the queue sets none, as one added here does.
   */
  constructor(
    private readonly storage: Storage,
    private readonly engineRetention: FrozenRetention,
  ) {}

  define(queue: ResolvedQueue): void {
    this.local.set(queue.name, queue);
    this.remote.delete(queue.name);
    this.pending = this.pending.then(() =>
      this.storage.queues
        .upsertQueue(queue.name, storedOptions(queue), this.engineRetention)
        .catch((error) => {
          this.failure = error;
        }),
    );
  }

  /** Wait until every queue defined so far is stored; rethrow a failed write once. */
  async flush(): Promise<void> {
    await this.pending;
    if (this.failure) {
      const failure = this.failure;
      this.failure = null;
      throw failure;
    }
  }

  localQueue(name: string): ResolvedQueue | undefined {
    return this.local.get(name);
  }

  localNames(): string[] {
    return [...this.local.keys()];
  }

  /**
   * The options a job added now takes from its queue. A queue defined in this process gives
   * its own (its policy, else `engineRetention`). For any other queue both are left out:
   * the insert statement reads the options stored for it at that moment, so a change made
   * by the queue's owner is never hidden behind a cache (see sql/stored-queue.ts).
   * QueueNotFoundError, before anything is written, when the queue exists nowhere.
   */
  async insertOptions(
    name: string,
    engineRetention: FrozenRetention,
    on?: Queryable,
  ): Promise<{ maxAttempts?: number; retention?: FrozenRetention; version?: string }> {
    const local = this.local.get(name);
    if (local) {
      return {
        maxAttempts: local.maxAttempts,
        retention: local.retention ?? engineRetention,
        version: local.version,
      };
    }
    return { version: (await this.get(name, on)).version };
  }

  /**
   * This process's definition, else the stored one; QueueNotFoundError when neither exists.
   * With `on` (a caller's transaction) the stored one is read through it: on PGlite, using the
   * database beside an open transaction would wait for that transaction forever.
   */
  async get(name: string, on?: Queryable): Promise<ResolvedQueue> {
    const known = this.local.get(name) ?? this.remote.get(name);
    if (known) return known;
    if (!on) await this.flush();
    const row = await this.storage.queues.getQueue(name, on);
    if (!row) throw new QueueNotFoundError(name);
    const { options } = row;
    const queue: ResolvedQueue = {
      name,
      retention: options.retention,
      concurrency: options.concurrency,
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      timeoutSeconds: options.timeoutSeconds,
      backoff: options.backoff ?? DEFAULT_BACKOFF,
      signals: options.signals ?? {},
      deleteCheckpointsOnComplete: options.deleteCheckpointsOnComplete ?? false,
      keys: options.keys,
      globalConcurrency: options.globalConcurrency,
      limiters: options.limiters,
      version: options.version,
    };
    this.remote.set(name, queue);
    return queue;
  }
}
