import type { AttemptOutcome, Storage } from '../storage/storage.js';

const RETRY_DELAYS_MS = [100, 500, 2_000, 5_000];

/** Outcomes written together, and the one promise their attempts wait on. */
interface Batch {
  outcomes: AttemptOutcome[];
  written: Promise<ReadonlyMap<string, string>>;
  resolve(written: ReadonlyMap<string, string>): void;
  reject(error: unknown): void;
}

/**
 * Batches finishing writes: outcomes that arrive in the same turn of the event loop, or while
 * a write is in flight, go together in the next statement, so a busy worker writes many
 * completions per round trip and an idle one writes each at once. Every attempt in a batch
 * waits on the batch's one promise (no promise per job) and reads its own row from it.
 */
export class FinishBuffer {
  /** Batches waiting to be written, oldest first; only the last takes new outcomes. */
  private readonly pending: Batch[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly storage: Storage,
    private readonly maxBatch = 1_000,
    private readonly retryDelaysMs = RETRY_DELAYS_MS,
  ) {}

  /**
   * Queue an outcome. Resolves, once its batch is written, with the new status of every job
   * in the batch that was still owned (look up your id: missing means the attempt had lost
   * the job); rejects when the write failed.
   */
  push(outcome: AttemptOutcome): Promise<ReadonlyMap<string, string>> {
    let batch = this.pending[this.pending.length - 1];
    if (!batch || batch.outcomes.length >= this.maxBatch) {
      batch = newBatch();
      this.pending.push(batch);
    }
    batch.outcomes.push(outcome);
    // Wait for the current turn of the event loop to end, so outcomes of handlers that
    // settled together share the first statement instead of the first going alone.
    if (!this.flushing) this.flushing = new Promise(setImmediate).then(() => this.drain());
    return batch.written;
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
        if (attempt >= this.retryDelaysMs.length) throw error;
        await new Promise((resolve) => setTimeout(resolve, this.retryDelaysMs[attempt]));
      }
    }
  }

  private async drain(): Promise<void> {
    try {
      for (let batch = this.pending.shift(); batch; batch = this.pending.shift()) {
        try {
          batch.resolve(await this.writeWithRetries(batch.outcomes));
        } catch (error) {
          batch.reject(error);
        }
      }
    } finally {
      this.flushing = null;
    }
  }
}

function newBatch(): Batch {
  let resolve!: Batch['resolve'];
  let reject!: Batch['reject'];
  const written = new Promise<ReadonlyMap<string, string>>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { outcomes: [], written, resolve, reject };
}
