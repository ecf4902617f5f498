import { JobTimeoutError } from '../errors.js';
import type { Job } from '../model/job.js';
import { LostOwnership } from '../workflow/suspend.js';
import type { NotesWriter } from './notes-writer.js';

/** Why a running attempt was aborted from outside its handler. */
export type AbortReason = 'lost' | 'shutdown' | 'timeout';

/** One running attempt, as the worker tracks it. */
export interface RunningAttempt {
  id: string;
  token: string;
  queue: string;
  /** Set by the worker once it has given the attempt's slot back. */
  slotFree: boolean;
  /** When the attempt took its slot (`performance.now()`). */
  readonly startedAt: number;
  /**
   * Whether the job counts against a limit the database keeps (a concurrency key, a global
   * limit): its written outcome may let a claim take jobs it had to leave.
   */
  readonly holdsLimit: boolean;
  /** Set for the jobs of one batch, which share a slot: how many of them still hold it. */
  batch?: { open: number };
  abort(reason: AbortReason): void;
}

/**
 * What runAttempt tells the worker, as methods of one object rather than closures made per
 * job: the attempt started, its handler settled (its slot is free while the outcome is
 * written in a batch, held while a statement of its own writes it), and it is over.
 */
export interface AttemptHost {
  /** Where the attempt's notes (progress, metadata, log) are written. */
  readonly notes: NotesWriter;
  register(attempt: RunningAttempt): void;
  settled(attempt: RunningAttempt, holdsSlot: boolean): void;
  finished(attempt: RunningAttempt): void;
}

/**
 * The worker's handle on one attempt: its abort state and the handler's abort signal. A
 * class rather than an object literal with getters and closures: one is made per job, and
 * literals with accessors were a large share of a no-op job's allocations.
 */
export class Attempt implements RunningAttempt {
  readonly id: string;
  readonly token: string;
  readonly queue: string;
  slotFree = false;
  readonly startedAt = performance.now();
  readonly holdsLimit: boolean;
  batch?: { open: number };
  abortedBy: AbortReason | null = null;
  abortError: Error | null = null;
  /** Settles the attempt's race between its handler and an abort. */
  onAbort: ((reason: AbortReason) => void) | null = null;
  /** The handler's promise, when it returned one: an aborted attempt's handler may run on. */
  handlerReturned: PromiseLike<unknown> | null = null;
  private controller: AbortController | null = null;

  constructor(
    job: Job,
    token: string,
    private readonly timeoutSeconds: number | undefined,
    globallyLimited = false,
  ) {
    this.id = job.id;
    this.token = token;
    this.queue = job.queue;
    this.holdsLimit = job.key !== null || globallyLimited;
  }

  /**
   * The handler's abort signal, made on first use: most handlers never read ctx.signal, and
   * an AbortController per job is a measurable share of a no-op job's cost.
   */
  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortError) this.controller.abort(this.abortError);
    }
    return this.controller.signal;
  }

  abort(reason: AbortReason): void {
    if (this.abortedBy) return;
    this.abortedBy = reason;
    this.abortError =
      reason === 'timeout' ? new JobTimeoutError(this.timeoutSeconds ?? 0) : new LostOwnership(this.id);
    this.controller?.abort(this.abortError);
    this.onAbort?.(reason);
  }
}
