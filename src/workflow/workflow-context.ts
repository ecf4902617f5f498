import { ChildJobFailedError, InvalidOptionError } from '../errors.js';
import { addChild } from '../intake/add-child.js';
import { resolveChild } from '../intake/job-request.js';
import { validateRequests } from '../intake/validate-data.js';
import { isFinished } from '../job-status.js';
import type { DependencyOutcome } from '../model/dependencies.js';
import { isObject } from '../model/guards.js';
import type { JobLog, JobMetadata, Progress } from '../model/notes.js';
import type { AttemptTracing } from '../model/tracing.js';
import { checkInteger, checkSeconds } from '../options/check.js';
import { toJsonText } from '../options/json.js';
import type { Queryable } from '../storage/storage.js';
import { FAILED_STEP } from './call-record.js';
import {
  CHILD_PREFIX,
  checkDeclaredSignals,
  type JobContext,
  PATCH_PREFIX,
  type RunChildOptions,
  type SignalResult,
  type SignalsResult,
  WAIT_PREFIX,
  type WaitOptions,
} from './job-context.js';
import { NoteBook } from './note-book.js';
import { RetryAfter, type RetryAfterOptions } from './retry-after.js';
import { RunState, type WorkflowContextDeps } from './run-state.js';
import { LostOwnership } from './suspend.js';
import * as tokens from './token-wait.js';

export type { WorkflowContextDeps } from './run-state.js';

/** One attempt's context: the handler's API over the run's state (RunState). */
export class WorkflowContext extends RunState implements JobContext {
  /** Set by `completionTx`; the executor runs it inside the completing transaction. */
  completionHook: ((tx: Queryable) => Promise<void> | void) | null = null;
  /** What the handler said of its job (progress, metadata, log), when it said anything. */
  notes: NoteBook | null = null;
  /** The attempt's span, when tracing is on. */
  readonly tracing: AttemptTracing | null;

  constructor(deps: WorkflowContextDeps) {
    super(deps);
    this.tracing = deps.tracing;
  }

  /** Made on first read, so a handler that never reads it costs no AbortController. */
  get signal(): AbortSignal {
    return this.deps.attempt.signal();
  }

  async step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    this.throwIfSuspended();
    this.names.claim(name);
    if (typeof fn !== 'function') throw new InvalidOptionError('fn', 'a function', fn);
    const { seq, checkpoints } = await this.enter('step', name);
    const stored = checkpoints.get(name);
    if (stored && stored.kind !== FAILED_STEP) {
      this.tracing?.replayed(name);
      this.book.replay(name);
      return stored.output as T;
    }
    this.throwIfAborted();
    const startedAt = this.now();
    let text: string;
    try {
      const value = this.tracing === null ? await fn() : await this.tracing.step(name, fn);
      text = toJsonText(value, `step '${name}' result`);
      await this.save(name, 'step', text, seq);
    } catch (error) {
      if (!(error instanceof LostOwnership)) {
        this.book.step(name, startedAt, error);
        await this.markFailed(name, seq, error);
      }
      throw error;
    }
    this.book.step(name, startedAt);
    return JSON.parse(text) as T;
  }

  async sleep(name: string, seconds: number): Promise<void> {
    this.throwIfSuspended();
    this.names.claim(name);
    checkSeconds(seconds, 'seconds', { max: 3_153_600_000 });
    const { seq, checkpoints } = await this.enter('sleep', name);
    const stored = checkpoints.get(name);
    let wakeAt: Date;
    if (stored) {
      wakeAt = new Date((stored.output as { wakeAt: string }).wakeAt);
    } else {
      wakeAt = new Date(this.now() + seconds * 1000);
      await this.save(name, 'sleep', JSON.stringify({ wakeAt: wakeAt.toISOString() }), seq);
    }
    if (wakeAt.getTime() <= this.now()) return;
    throw this.suspend({ kind: 'sleep', name }, wakeAt);
  }

  async waitForSignal(name: string, options: WaitOptions = {}): Promise<SignalResult> {
    return this.waitForAny([name], options);
  }

  async waitForAny(names: string[], options: WaitOptions = {}): Promise<SignalResult> {
    if (!Array.isArray(names) || names.length === 0) {
      throw new InvalidOptionError('names', 'a non-empty array of signal names', names);
    }
    const got = await this.waitSignals(names, 1, options);
    if (!got) return { timedOut: true, name: null, payload: null };
    return { timedOut: false, name: got[0].name, payload: got[0].payload };
  }

  async waitForSignals(name: string, count: number, options: WaitOptions = {}): Promise<SignalsResult> {
    checkInteger(count, 'count', 1, 10_000);
    const got = await this.waitSignals([name], count, options);
    if (!got) return { timedOut: true, payloads: [] };
    return { timedOut: false, payloads: got.map((s) => s.payload) };
  }

  async runChild<T = unknown>(
    queue: string | { readonly name: string },
    data?: unknown,
    options: RunChildOptions = {},
  ): Promise<T> {
    this.throwIfSuspended();
    const { name, ...childOptions } = isObject(options) ? options : ({} as RunChildOptions);
    const key = name === undefined ? this.names.next('child') : this.names.named(name, 'options.name');
    // A handle names its queue; anything else is checked as a queue name.
    const queueName: unknown = isObject(queue) ? queue.name : queue;
    const request = resolveChild(queueName, data, isObject(options) ? childOptions : options);
    const { seq, checkpoints } = await this.enter('child', `${CHILD_PREFIX}${key}`);
    const { core, job, token } = this.deps;
    let child = await core.storage.workflow.findChild(job.id, key);
    // A call of this run broke its record meanwhile: start nothing more.
    this.throwIfSuspended();
    if (!child) {
      const placement = { parentId: job.id, rootId: job.rootId ?? job.id, parentStep: key, token };
      // A child on a queue defined here with a schema: its data checked, as at addJob.
      await validateRequests(core, [request]);
      // Traced as a step of its own: the child's spans are children of the call that added it.
      const id =
        this.tracing === null
          ? await addChild(core, request, placement)
          : await this.tracing.step(key, () => addChild(core, request, placement));
      child = await core.storage.workflow.findChild(job.id, key);
      if (!id && !child) throw new LostOwnership(job.id);
      if (child) this.book.add('child', { key, childId: child.id, queue: child.queue });
    }
    if (!child) throw new LostOwnership(job.id);
    // The record of the start; written again after a crash between the child's insert and it.
    if (!checkpoints.has(`${CHILD_PREFIX}${key}`)) {
      await this.save(`${CHILD_PREFIX}${key}`, 'child', JSON.stringify({ childId: child.id }), seq);
    }
    const { woken } = this.deps;
    if (isFinished(child.status) && woken?.kind === 'child' && woken.key === key) {
      this.book.add('child-done', { key, childId: child.id, status: child.status });
    }
    if (child.status === 'completed') return child.output as T;
    if (isFinished(child.status)) {
      throw new ChildJobFailedError(child.id, child.status, child.error, child.queue);
    }
    throw this.suspend({ kind: 'child', childId: child.id, key }, null);
  }

  async patched(name: string): Promise<boolean> {
    this.throwIfSuspended();
    if (typeof name !== 'string' || name.length === 0 || name.length > 200 || name.includes('\u0000')) {
      throw new InvalidOptionError('name', 'a patch name of 1-200 characters without NUL', name);
    }
    const placement = await this.enter('patch', `${PATCH_PREFIX}${name}`);
    if (placement.markNew) await this.save(`${PATCH_PREFIX}${name}`, 'patch', 'true', placement.seq);
    return placement.patched === true;
  }

  dependencies(): Promise<DependencyOutcome[]> {
    return this.deps.core.storage.jobs.dependenciesOf(this.job.id);
  }

  createToken(name: string, options: tokens.CreateTokenOptions): Promise<tokens.CallbackToken> {
    return tokens.createToken(this as unknown as tokens.TokenRun, name, options);
  }

  waitForToken<T = unknown>(token: tokens.CallbackToken): Promise<tokens.TokenResult<T>> {
    return tokens.waitForToken<T>(this as unknown as tokens.TokenRun, token);
  }

  completionTx(fn: (tx: Queryable) => Promise<void> | void): void {
    this.throwIfSuspended();
    if (typeof fn !== 'function') throw new InvalidOptionError('fn', 'a function (tx) => void', fn);
    this.completionHook = fn;
  }

  retryAfter(seconds: number, options?: RetryAfterOptions): RetryAfter {
    return new RetryAfter(seconds, options);
  }

  progress(value: Progress): void {
    this.noteBook.progress(value);
  }

  get metadata(): JobMetadata {
    return this.noteBook.metadata;
  }

  get log(): JobLog {
    return this.noteBook.log;
  }

  /** Made on the first note: a handler that writes none costs nothing here. */
  private get noteBook(): NoteBook {
    const { core, job, token, notes } = this.deps;
    this.notes ??= new NoteBook(job, token, notes, core.clock);
    return this.notes;
  }

  /** Consumed signals, or null on timeout; suspends while they have not all arrived. */
  private async waitSignals(
    names: string[],
    count: number,
    { timeoutSeconds, name }: WaitOptions,
  ): Promise<{ name: string; payload: unknown }[] | null> {
    this.throwIfSuspended();
    checkDeclaredSignals(this.job.queue, this.deps.queue.signals, names);
    // More than the mailbox can hold would never arrive: the wait could only time out.
    for (const name of names) {
      if (count > this.deps.queue.signals[name]) {
        throw new InvalidOptionError(
          'count',
          `at most the declared mailbox size of signal '${name}' (${this.deps.queue.signals[name]})`,
          count,
        );
      }
    }
    if (timeoutSeconds !== undefined) checkSeconds(timeoutSeconds, 'timeoutSeconds', { exclusiveMin: true });
    const key =
      name === undefined
        ? this.names.next(`${WAIT_PREFIX}${names.join('|')}`)
        : `${WAIT_PREFIX}${this.names.named(name, 'options.name')}`;
    const { seq, checkpoints } = await this.enter('wait', key);
    const stored = checkpoints.get(key);
    const state = stored?.output as
      | { state: string; signals?: { name: string; payload: unknown }[]; deadline?: string | null }
      | undefined;
    if (state?.state === 'done') return state.signals ?? [];
    if (state?.state === 'timed-out') return null;
    let deadline: Date | null;
    if (state) {
      deadline = state.deadline ? new Date(state.deadline) : null;
    } else {
      deadline = timeoutSeconds === undefined ? null : new Date(this.now() + timeoutSeconds * 1000);
      await this.save(
        key,
        'wait',
        JSON.stringify({ state: 'waiting', names, deadline: deadline?.toISOString() ?? null }),
        seq,
      );
    }
    const { core, job, token } = this.deps;
    const consumed = await core.storage.workflow.consumeSignals(job.id, token, names, count, key);
    if (consumed) {
      this.book.add('signal', { key, signals: consumed.signals.map((signal) => signal.name) });
      return consumed.signals;
    }
    if (deadline && deadline.getTime() <= this.now()) {
      await this.save(
        key,
        'wait',
        JSON.stringify({ state: 'timed-out', names, deadline: deadline.toISOString() }),
        seq,
      );
      this.book.add('timeout', { key, deadline: deadline.toISOString() });
      return null;
    }
    throw this.suspend({ kind: 'signal', names, count, key }, deadline);
  }

  private throwIfAborted(): void {
    if (this.signal.aborted) throw this.signal.reason ?? new LostOwnership(this.job.id);
  }
}
