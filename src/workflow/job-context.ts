import { DuplicateStepError, InvalidOptionError, UnknownSignalError } from '../errors.js';
import type { DependencyOutcome } from '../model/dependencies.js';
import type { Job } from '../model/job.js';
import type { JobLog, JobMetadata, Progress } from '../model/notes.js';
import type { Queryable } from '../storage/storage.js';
import type { RetryAfter, RetryAfterOptions } from './retry-after.js';
import type { CallbackToken, CreateTokenOptions, TokenResult } from './token-wait.js';

/** What `ctx.waitForSignal` and `ctx.waitForAny` resolve to. */
export type SignalResult =
  | { timedOut: false; name: string; payload: unknown }
  | { timedOut: true; name: null; payload: null };

/** What `ctx.waitForSignals` resolves to. */
export type SignalsResult = { timedOut: false; payloads: unknown[] } | { timedOut: true; payloads: [] };

/** Options of the signal waits (`ctx.waitForSignal`, `ctx.waitForAny`, `ctx.waitForSignals`). */
export interface WaitOptions {
  /** Give up after this many seconds: the wait resolves as timed out. */
  timeoutSeconds?: number;
  /**
   * The wait's own name, unique in the run like a step's (no '#'). Unnamed, a wait is known by
   * its signal names and how many such waits came before it (`wait:approval#2`), so a wait
   * added or removed before it changes its key; a named one keeps its key wherever it moves.
   */
  name?: string;
}

/** Options of `ctx.runChild`. */
export interface RunChildOptions {
  /**
   * The call's own name, unique in the run like a step's (no '#'). Unnamed, a child is known by
   * its place among the run's children (`child#2`); a named one keeps its key wherever it moves.
   */
  name?: string;
  priority?: number;
  maxAttempts?: number;
  delaySeconds?: number;
  retention?: import('../model/retention-policy.js').RetentionPolicy | false;
  /** The child's concurrency key (flow control). */
  key?: string;
  /** The key's tier. */
  tier?: string;
  /** The child's tags. */
  tags?: string[];
}

/**
 * The second argument of every handler. Workflow calls (`step`, `sleep`, waits,
 * `runChild`) are durable: a later attempt of the same job replays them from checkpoints.
 * Do not catch the errors they throw: a suspension unwinds the handler on purpose.
 */
export interface JobContext {
  /** Fires when the job is cancelled, its lock is lost, the worker stops, or it times out. */
  readonly signal: AbortSignal;
  /** The job being run. */
  readonly job: Job;
  /**
   * Run `fn` once and store its JSON result; later attempts return the stored result. Names
   * are unique within a run (DuplicateStepError). A step that throws stores nothing and runs
   * again on the next attempt, so make `fn` idempotent.
   */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /**
   * A durable timer: the job waits in `waiting`, holding no worker slot, and resumes after
   * `seconds` on any worker. The wake time is fixed on the first run.
   */
  sleep(name: string, seconds: number): Promise<void>;
  /**
   * Wait for one signal of this name (declared on the queue) and consume it. Resolves with
   * `{ timedOut: true, name: null, payload: null }` when `timeoutSeconds` pass first.
   */
  waitForSignal(name: string, options?: WaitOptions): Promise<SignalResult>;
  /** Wait for one signal of any of these names (mailbox 1 across them). */
  waitForAny(names: string[], options?: WaitOptions): Promise<SignalResult>;
  /**
   * Wait for `count` signals of this name and consume them, oldest first. `count` may not
   * exceed the name's declared mailbox size. On timeout: `{ timedOut: true, payloads: [] }`.
   */
  waitForSignals(name: string, count: number, options?: WaitOptions): Promise<SignalsResult>;
  /**
   * Start a child job once per call position (`child#n`), wait for it, and return its output;
   * throws ChildJobFailedError when it ends failed, cancelled or expired. A retried parent
   * reuses its finished children.
   */
  runChild<T = unknown>(
    queue: string | { readonly name: string },
    data?: unknown,
    options?: RunChildOptions,
  ): Promise<T>;
  /**
   * Branch new code around runs that started before it. True for a new run, and for a run that
   * reaches this call for the first time (the answer is recorded); false for a run recorded past
   * this point without it, which must keep taking the old path. Await it on its own, before
   * the next workflow call. Retire a patch in two deploys: once no run of the old path is in
   * flight, drop the old branch and keep the call; once no run that recorded the call is in
   * flight either, drop the call (the guard passes over markers the code no longer asks for).
   */
  patched(name: string): Promise<boolean>;
  /**
   * Make a callback token, once per name (a replay gets the same token; names are unique in a
   * run with steps' names). Hand out its `id` (for `tm.completeToken`) or `url()` (signed,
   * for the token handler); it expires after `timeoutSeconds`. Payloads are checked by
   * `schema` when given and capped by `tokens.maxPayloadBytes`.
   */
  createToken(name: string, options: CreateTokenOptions): Promise<CallbackToken>;
  /**
   * Wait, holding no worker slot, until the token is completed (`{ ok: true, data }`), cancelled
   * by `tm.cancelToken` (`{ ok: false, reason: 'cancelled' }`) or expires (`reason: 'timeout'`).
   */
  waitForToken<T = unknown>(token: CallbackToken): Promise<TokenResult<T>>;
  /**
   * Run `fn(tx)` inside the transaction that marks this job completed (to copy results into
   * application tables). If `fn` throws, the completion rolls back and the attempt fails. A
   * completion that lost the job runs nothing. Use only `tx` inside `fn`.
   */
  completionTx(fn: (tx: Queryable) => Promise<void> | void): void;
  /**
   * The jobs this one was added to wait for (`dependsOn`), in id order, each as it is now:
   * its status, its output when it completed, its error when it failed (all null, the queue
   * too, for one deleted by hand). Empty for a job added without dependencies. Retention keeps
   * each of them while this job is in flight.
   */
  dependencies(): Promise<DependencyOutcome[]>;
  /**
   * Make the signal that puts this job back: `throw ctx.retryAfter(seconds, { reason })`,
   * say on an HTTP 429 with a `Retry-After` header. The job returns to `pending`, due in
   * `seconds`, without spending an attempt, and keeps its checkpoints; the reason goes to its
   * attempt log. Throws InvalidOptionError for seconds that are not a number from 0 to 100
   * years or a reason that is not a string of at most 1,000 characters.
   */
  retryAfter(seconds: number, options?: RetryAfterOptions): RetryAfter;
  /**
   * Report how far the job has come: a number from 0 to 100, or a JSON object of at most 4 KiB
   * (say `{ done: 40, total: 120 }`). The latest value is written at most once a second and
   * always before the attempt's outcome; `tm.getJob(id).progress` reads it. Throws
   * InvalidOptionError for anything else, and keeps the previous value.
   */
  progress(value: Progress): void;
  /** JSON values by key, kept on the job across attempts and written like progress. */
  readonly metadata: JobMetadata;
  /** Log lines kept with the job, each with its attempt; `tm.getJobLogs(id)` reads them. */
  readonly log: JobLog;
}

/** Checkpoint names of signal waits start with this; step and sleep names may not. */
export const WAIT_PREFIX = 'wait:';
/** Checkpoint names of children started start with this (the determinism guard's record of them). */
export const CHILD_PREFIX = 'child:';
/** Checkpoint names of patch markers (`ctx.patched`) start with this. */
export const PATCH_PREFIX = 'patch:';
/** Prefixes of checkpoints that are not steps or sleeps: no step or sleep name may start with one. */
const RESERVED_PREFIXES = [WAIT_PREFIX, CHILD_PREFIX, PATCH_PREFIX];

/** Names used in one run, to refuse a step name used twice. */
export class RunNames {
  private readonly used = new Set<string>();
  private readonly counters = new Map<string, number>();

  claim(name: string): void {
    // NUL cannot be stored in a text column: refuse it here rather than fail in the database.
    if (typeof name !== 'string' || name.length === 0 || name.length > 200 || name.includes('\u0000')) {
      throw new InvalidOptionError('name', 'a step name of 1-200 characters without NUL', name);
    }
    // Signal waits store their checkpoints under 'wait:<names>#<n>', children under
    // 'child:<key>': a step of such a name would read (and be overwritten by) their state.
    const reserved = RESERVED_PREFIXES.find((prefix) => name.startsWith(prefix));
    if (reserved !== undefined) {
      throw new InvalidOptionError('name', `a step name not starting with '${reserved}' (reserved)`, name);
    }
    if (this.used.has(name)) throw new DuplicateStepError(name);
    this.used.add(name);
  }

  /**
   * An explicit name of a wait or a child: unique in the run like a step's (DuplicateStepError),
   * and without '#', which the keys of unnamed calls use (`child#2`), so the two never meet.
   */
  named(name: unknown, field: string): string {
    if (typeof name !== 'string' || name.includes('#')) {
      throw new InvalidOptionError(field, "a name of 1-200 characters without '#' or NUL", name);
    }
    this.claim(name);
    return name;
  }

  /** A deterministic key for the n-th call of a kind in this run (waits, children). */
  next(kind: string): string {
    const n = (this.counters.get(kind) ?? 0) + 1;
    this.counters.set(kind, n);
    return `${kind}#${n}`;
  }
}

export function checkDeclaredSignals(queue: string, declared: Record<string, number>, names: string[]): void {
  for (const name of names) {
    if (typeof name !== 'string' || !(name in declared)) throw new UnknownSignalError(queue, String(name));
  }
}
