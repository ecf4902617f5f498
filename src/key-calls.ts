import type { AuditOptions } from './model/audit.js';
import type { KeyInfo, KeyLimit } from './model/keys.js';
import { type ListKeysOptions, listKeys, setKeyLimit, setKeyPaused } from './queues/key-settings.js';
import { RetentionCalls } from './retention-calls.js';

/**
 * The flow-control calls of the Tidemark engine: per-key overrides, pauses and the list of a
 * queue's keys. `Tidemark` extends it; see flow-control.md.
 */
export abstract class KeyCalls extends RetentionCalls {
  /**
   * Replace the concurrency of one key of a queue with `{ concurrency }`, persisted and seen by
   * every worker at its next claim; `null` goes back to the queue's `keys` rule.
   */
  async setKeyLimit(
    queue: string,
    key: string,
    limit: KeyLimit | null,
    options?: AuditOptions,
  ): Promise<void> {
    const detail = limit === null ? 'null' : JSON.stringify(limit);
    return this.audit(options, 'set-key-limit', { queue, key, detail }, (core) =>
      setKeyLimit(core, queue, key, limit),
    );
  }

  /** Stop one key's jobs from starting, across the cluster; those running finish. */
  async pauseKey(queue: string, key: string, options?: AuditOptions): Promise<void> {
    return this.audit(options, 'pause-key', { queue, key }, (core) => setKeyPaused(core, queue, key, true));
  }

  /** Let a paused key's jobs start again. */
  async resumeKey(queue: string, key: string, options?: AuditOptions): Promise<void> {
    return this.audit(options, 'resume-key', { queue, key }, (core) => setKeyPaused(core, queue, key, false));
  }

  /**
   * A queue's concurrency keys that have unfinished jobs or settings, in key order: running and
   * pending counts, the limit, the pause, the oldest pending run time. Page with `after`.
   */
  async listKeys(queue: string, options?: ListKeysOptions): Promise<KeyInfo[]> {
    return this.whenReady((core) => listKeys(core, queue, options));
  }
}
