import { JobStatus } from '../job-status.js';
import { type Logger, silentLogger } from '../log/logger.js';
import type { AttemptOutcome, Storage } from '../storage/storage.js';
import { isRefusal } from '../storage/storage.js';
import { RetryWindow } from './retry-window.js';

/**
 * An outcome that was not written: refused by the database for a value it carries (the
 * attempt should fail with a storable error instead), or given up when the worker's retry
 * window closed (its job runs again once its lock lapses).
 */
export class Unwritten {
  constructor(
    readonly error: unknown,
    readonly refused: boolean,
  ) {}
}

/** What a batch reports for one job: its new status, or why its outcome was not written. */
export type WriteResult = JobStatus | Unwritten;

/**
 * What became of a batch's outcomes. Only those that did not simply complete their jobs are
 * held, by lock token: a batch is hundreds of outcomes, nearly all completions.
 */
export class WrittenBatch {
  constructor(private readonly exceptions: ReadonlyMap<string, WriteResult | null>) {}

  /**
   * What became of the outcome of the attempt holding `token`: its job's new status (a
   * success's is `completed`), why it was not written, or undefined when the attempt had lost
   * its job and nothing was written.
   */
  resultOf(token: string): WriteResult | undefined {
    const result = this.exceptions.get(token);
    return result === undefined ? JobStatus.COMPLETED : (result ?? undefined);
  }
}

/** Outcomes written together, and the one promise their attempts wait on. */
interface Batch {
  outcomes: AttemptOutcome[];
  written: Promise<WrittenBatch>;
  resolve(written: WrittenBatch): void;
}

/** Most outcomes a finishing statement writes, unless the buffer is given another bound. */
export const FINISH_BATCH_MAX = 1_000;

export interface FinishBufferOptions {
  /** Most outcomes per statement. Default FINISH_BATCH_MAX. */
  maxBatch?: number;
  /** When to stop retrying a write the database does not answer. Default: never closes. */
  window?: RetryWindow;
  logger?: Logger;
}

/**
 * Batches finishing writes: outcomes that arrive in the same turn of the event loop, or while
 * a write is in flight and in the turn after it, go together in the next statement, so a busy
 * worker writes many completions per round trip and an idle one writes each at once. Every
 * attempt in a batch waits on the batch's one promise (no promise per job) and reads its own
 * row from it.
 *
 * A write the database does not answer is retried until it lands or the retry window closes
 * (the worker stopped and its shutdown timeout passed): the write is idempotent, since a second
 * one matches no lock token. A write refused for a value one row carries is split in halves
 * until that row stands alone, so the others are written and only its attempt is told.
 */
export class FinishBuffer {
  /** Batches waiting to be written, oldest first; only the last takes new outcomes. */
  private readonly pending: Batch[] = [];
  /** The batch being written now (taken off `pending`). */
  private current: Batch | null = null;
  private flushing: Promise<void> | null = null;
  private readonly maxBatch: number;
  private readonly logger: Logger;
  /** A write has failed and none has landed since: the outage is logged once, not per try. */
  private writesFailing = false;
  readonly window: RetryWindow;

  constructor(
    private readonly attempts: Pick<Storage['attempts'], 'finishAttempts'>,
    options: FinishBufferOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? FINISH_BATCH_MAX;
    this.window = options.window ?? new RetryWindow();
    this.logger = options.logger ?? silentLogger;
  }

  /**
   * Queue an outcome. Resolves, once its batch is written, with what became of the batch's
   * outcomes (look up your lock token). Never rejects.
   */
  push(outcome: AttemptOutcome): Promise<WrittenBatch> {
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

  /** Wait until everything pushed so far is written (or given up). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** A write has failed and none has landed since: outcomes are held. */
  get failing(): boolean {
    return this.writesFailing;
  }

  /**
   * Try held writes again now, and wait until every outcome pushed so far is written (or given
   * up): true once they are, false when `ms` pass first. The worker's maintenance tick calls
   * this before recovering stalled jobs, so its own held outcomes land before it.
   */
  async writtenWithin(ms: number): Promise<boolean> {
    const last = this.pending[this.pending.length - 1] ?? this.current;
    if (!last) return true;
    this.window.wake();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([last.written.then(() => true), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async drain(): Promise<void> {
    try {
      for (let batch = this.pending.shift(); batch; batch = this.pending.shift()) {
        this.current = batch;
        const written = new Map<string, WriteResult | null>();
        try {
          await this.write(batch.outcomes, written);
        } catch (error) {
          // Not a database error: a bug. Say so for each outcome rather than leave them waiting.
          for (const outcome of batch.outcomes) written.set(outcome.token, new Unwritten(error, false));
        }
        batch.resolve(new WrittenBatch(written));
        // One turn of the event loop before the next statement, so that the handlers the write
        // held back settle and their outcomes join it. On PGlite a write runs on this thread and
        // costs about 1.3 ms whatever its size: writing each batch at once made batches of about
        // 140 there, this makes them of up to maxBatch.
        if (this.pending.length > 0) await new Promise(setImmediate);
      }
    } finally {
      this.current = null;
      this.flushing = null;
    }
  }

  /** Write `outcomes`, recording in `written` what became of each that did not simply complete. */
  private async write(outcomes: AttemptOutcome[], written: Map<string, WriteResult | null>): Promise<void> {
    for (let failures = 1; ; failures++) {
      let error: unknown;
      try {
        const exceptions = await this.attempts.finishAttempts(outcomes);
        for (const [token, status] of exceptions) written.set(token, status);
        if (this.writesFailing) {
          this.writesFailing = false;
          this.logger.info('the database answers again; held outcomes are being written');
        }
        return;
      } catch (caught) {
        error = caught;
      }
      if (isRefusal(error)) return this.split(outcomes, written, error);
      if (!this.writesFailing) {
        this.writesFailing = true;
        this.logger.warn(
          'could not write the outcomes of finished attempts; retrying while the worker runs',
          {
            outcomes: outcomes.length,
            error: String(error),
          },
        );
      }
      if (!(await this.window.beforeRetry(failures))) {
        this.logger.error(
          'gave up writing the outcomes of finished attempts: the database did not answer before the shutdown timeout; their jobs run again once their locks lapse',
          { outcomes: outcomes.length, jobIds: outcomes.slice(0, 20).map((o) => o.id), error: String(error) },
        );
        for (const outcome of outcomes) written.set(outcome.token, new Unwritten(error, false));
        return;
      }
    }
  }

  /** A refused write: find the row at fault by halves, write the rest. */
  private async split(
    outcomes: AttemptOutcome[],
    written: Map<string, WriteResult | null>,
    error: unknown,
  ): Promise<void> {
    if (outcomes.length === 1) {
      const [outcome] = outcomes;
      this.logger.warn("the database refused an attempt's outcome; the attempt fails instead", {
        jobId: outcome.id,
        error: String(error),
      });
      written.set(outcome.token, new Unwritten(error, true));
      return;
    }
    const half = Math.ceil(outcomes.length / 2);
    await this.write(outcomes.slice(0, half), written);
    await this.write(outcomes.slice(half), written);
  }
}

function newBatch(): Batch {
  let resolve!: Batch['resolve'];
  const written = new Promise<WrittenBatch>((res) => {
    resolve = res;
  });
  return { outcomes: [], written, resolve };
}
