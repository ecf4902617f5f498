import type { AttemptOutcome, Storage } from '../storage/storage.js';

const RETRY_DELAYS_MS = [100, 500, 2_000, 5_000];

/**
 * Batches finishing writes: outcomes that arrive in the same turn of the event loop, or while
 * a write is in flight, go together in the next statement, so a busy worker writes many
 * completions per round trip and an idle one writes each at once.
 */
export class FinishBuffer {
  private queued: {
    outcome: AttemptOutcome;
    resolve: (status: string | null) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly maxBatch = 1_000,
  ) {}

  /** Resolves with the job's new status, or null when the attempt had lost the job. */
  push(outcome: AttemptOutcome): Promise<string | null> {
    return new Promise((resolve, reject) => {
      this.queued.push({ outcome, resolve, reject });
      // Wait for the current turn of the event loop to end, so outcomes of handlers that
      // settled together share the first statement instead of the first going alone.
      if (!this.flushing) this.flushing = new Promise(setImmediate).then(() => this.drain());
    });
  }

  /** Wait until everything pushed so far is written. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /**
   * A lost connection should not turn finished work into a stalled job: retry the write a
   * few times (it is idempotent: a second write matches no lock token).
   */
  private async writeWithRetries(outcomes: AttemptOutcome[]): Promise<Map<string, string>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.storage.finishAttempts(outcomes);
      } catch (error) {
        if (attempt >= RETRY_DELAYS_MS.length) throw error;
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[attempt]));
      }
    }
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued.splice(0, this.maxBatch);
        try {
          const written = await this.writeWithRetries(batch.map((b) => b.outcome));
          for (const entry of batch) entry.resolve(written.get(entry.outcome.id) ?? null);
        } catch (error) {
          for (const entry of batch) entry.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}
