import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import type { BatchRule } from '../model/batch.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import type { ClaimedJob } from '../storage/storage.js';
import { runAttempt } from './attempt.js';
import { runBatch } from './batch-attempt.js';
import { BatchGatherer } from './batch-gatherer.js';
import { FINISH_BATCH_MAX, type FinishBuffer } from './finish-buffer.js';
import { JobBuffer } from './job-buffer.js';
import type { NotesWriter } from './notes-writer.js';
import { PrefetchSizer } from './prefetch.js';
import type { AttemptHost, RunningAttempt } from './running-attempt.js';
import type { Wakeup } from './wakeup.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/**
 * How many outcomes may wait to be written before a worker stops claiming: a full finishing
 * statement in flight and a full one gathering behind it. At one statement's worth, a drain
 * stopped claiming whenever a statement of 1,000 was in flight and a few more jobs had
 * ended, and its claim connection stood idle for most of that statement. At least two
 * outcomes per slot, for workers wider than that.
 */
export function outcomeBacklogBound(concurrency: number): number {
  return Math.max(2 * FINISH_BATCH_MAX, 2 * concurrency);
}

/**
 * The claims a worker holds and the slots they run in: claimed jobs wait in a buffer, start
 * while a slot is free, and are tracked until their outcome is written. The claim loop fills
 * the buffer; the heartbeat keeps every claim held here alive.
 */
export class Slots {
  /**
   * Running attempts by lock token, not job id: a worker can reclaim its own stalled job
   * while the old attempt still runs, and both hold a slot until they settle.
   */
  readonly running = new Map<string, RunningAttempt>();
  /**
   * Settled attempts whose outcome is still being written, by lock token. Their locks are
   * extended too: a write held through a database outage must still own its row when it lands.
   */
  readonly writing = new Map<string, RunningAttempt>();
  /**
   * Slots in use: a running attempt holds one, a running batch one for all its jobs, and an
   * attempt whose outcome is written by a statement of its own (a completion transaction, a
   * suspension) keeps its slot until that write is done, so the slots bound how many of them
   * wait for a connection (see writesAlone in attempt.ts).
   */
  private slotsInUse = 0;
  /**
   * Claims pause while this many outcomes wait to be written, so a database that takes claims
   * but not outcomes cannot make the worker hold an ever-growing backlog in memory
   * (outcomeBacklogBound).
   */
  private readonly maxWriting: number;
  /** Running plus buffered attempts per queue, so a queue's cap also bounds what it prefetches. */
  readonly heldPerQueue = new Map<string, number>();
  /** Attempts started and not yet over (their outcome may still be being written). */
  private inflight = 0;
  /** Statements giving claimed jobs back are under way: the jobs are neither held here nor free. */
  givingBack = 0;
  /**
   * Claimed jobs taking their limiter tokens (see ClaimLoop): counted as buffered, so claims do
   * not run ahead of them; `admit` puts those granted in the buffer.
   */
  arriving = 0;
  /** Attempts started and not yet over, their outcome written or given up. */
  get attemptsInFlight(): number {
    return this.inflight;
  }
  /** Resolves whenIdle()'s wait once `inflight` reaches 0. */
  private onIdle: (() => void) | null = null;
  /** What attempts report to: made once, so a job costs no closures. */
  private readonly host: AttemptHost;
  /** Claimed jobs waiting for a free slot, in claim order. */
  readonly buffer = new JobBuffer();
  /** Claimed jobs of queues with `batch`, gathered into batches that wait for a slot. */
  readonly batches = new BatchGatherer(() => this.dispatch());
  readonly prefetch: PrefetchSizer;

  constructor(
    private readonly core: EngineCore,
    private readonly options: ResolvedWorkerOptions,
    private readonly finish: FinishBuffer,
    notes: NotesWriter,
    /** Freed slots start buffered jobs only while the worker runs. */
    private readonly worker: { readonly isRunning: boolean },
    private readonly wakeup: Wakeup,
    private readonly logger: Logger,
    private readonly workerId: string,
  ) {
    this.host = {
      notes,
      register: (attempt) => this.running.set(attempt.token, attempt),
      settled: (attempt, holdsSlot) => {
        if (holdsSlot) this.running.delete(attempt.token);
        else this.attemptSettled(attempt);
        this.writing.set(attempt.token, attempt);
      },
      finished: (attempt) => this.attemptFinished(attempt),
    };
    this.maxWriting = outcomeBacklogBound(options.concurrency);
    this.prefetch = new PrefetchSizer(options.prefetch, options.concurrency);
  }

  /**
   * Jobs to claim now: enough to fill the free slots and the prefetch target, once the
   * buffer has drained to half the target (so claims come in batches, not one per job).
   */
  wanted(): number {
    const target = this.prefetch.target();
    const held = this.buffer.length + this.arriving;
    if (held > target >> 1 || this.writing.size >= this.maxWriting) return 0;
    const want = this.options.concurrency + target - this.slotsInUse - held;
    return Math.min(want, this.options.fetchBatchSize);
  }

  /**
   * Start buffered jobs while slots are free, while the worker runs: once stop() began, what
   * is buffered waits for it to give it back. A job whose limiter tokens were granted must
   * start by its `startBy`, or the bound on starts would not hold at the handlers: one found
   * later goes back, its tokens spent.
   */
  dispatch(): void {
    if (!this.worker.isRunning) return;
    // Made only when a job is late: dispatch runs once per finished job.
    let late: ClaimedJob[] | null = null;
    while (this.slotsInUse < this.options.concurrency) {
      const batch = this.batches.hasReady ? this.batches.nextReady() : undefined;
      if (batch !== undefined) {
        this.launchBatch(batch);
        continue;
      }
      const next = this.buffer.shift();
      if (next === undefined) break;
      if (next.startBy !== undefined && performance.now() > next.startBy) {
        if (late === null) late = [];
        late.push(next);
      } else this.launch(next);
    }
    if (late !== null) void this.giveBack(late);
  }

  /**
   * Jobs back from the token gate: those to start go to the buffer (or, once the worker has
   * stopped, back to the database); the rest, already back in the database, leave their
   * queue's hold.
   */
  admit(start: ClaimedJob[], dropped: ClaimedJob[]): void {
    for (const job of dropped) this.holdRelease(job.job.queue);
    if (!this.worker.isRunning) {
      if (start.length > 0) void this.giveBack(start);
      return;
    }
    for (const job of start) this.buffer.push(job);
    this.dispatch();
    if (this.wakeup.waitingForRoom && this.wanted() > 0) this.wakeup.wake();
  }

  /** Claimed jobs waiting for a slot, alone or in a batch (the heartbeat keeps their locks). */
  waitingJobs(): ClaimedJob[] {
    return this.batches.size === 0
      ? this.buffer.toArray()
      : [...this.buffer.toArray(), ...this.batches.toArray()];
  }

  /**
   * The attempt claimed under `token` was cancelled: abort it, or drop it if no slot has
   * started it. By token, not by job: the notice comes after the cancel's commit, by which time
   * the job may have been retried and claimed again, here, under another token.
   */
  cancelled(token: string): void {
    this.running.get(token)?.abort('lost');
    const dropped = this.buffer.take(token) ?? this.batches.take(token);
    if (dropped) {
      // Cancelled before it started: drop it; its row already says cancelled.
      this.holdRelease(dropped.job.queue);
      this.core.events.emit('job:lost', { id: dropped.job.id, queue: dropped.job.queue });
    }
  }

  /** Give back the claimed jobs no slot has started, so another worker takes them now. */
  async releaseBuffer(): Promise<void> {
    const held = [...this.buffer.drain(), ...this.batches.drain()];
    if (held.length > 0) await this.giveBack(held);
  }

  /**
   * Give claimed jobs that no slot started back as they were, out of their queue's hold;
   * should that fail, their locks lapse.
   */
  async giveBack(jobs: ClaimedJob[]): Promise<void> {
    for (const job of jobs) this.holdRelease(job.job.queue);
    this.givingBack++;
    await this.core.storage.attempts
      .releaseJobs(
        jobs.map((c) => c.job.id),
        jobs.map((c) => c.token),
      )
      .catch((error) =>
        this.logger.warn('could not give claimed jobs back; their locks will lapse', {
          error: String(error),
        }),
      )
      .finally(() => this.givingBack--);
  }

  /** Resolves once every started attempt is over (its outcome written or given up), or after `ms`. */
  async whenIdle(ms: number): Promise<void> {
    if (this.inflight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.onIdle = resolve;
        timer = setTimeout(resolve, ms);
      });
      this.onIdle = null;
      clearTimeout(timer);
    }
  }

  private holdRelease(queue: string): void {
    this.heldPerQueue.set(queue, (this.heldPerQueue.get(queue) ?? 1) - 1);
  }

  private launch(claimed: ClaimedJob): void {
    const queue = this.core.registry.localQueue(claimed.job.queue) as ResolvedQueue;
    this.prefetch.started();
    this.inflight++;
    this.slotsInUse++;
    void runAttempt(this.core, claimed, queue, this.finish, this.host);
  }

  /**
   * Put a claimed job of a batch queue in the group of its batch key; a job whose key cannot
   * be computed waits alone in the buffer, to fail without running.
   */
  gather(job: ClaimedJob, rule: BatchRule): void {
    let key: string | null;
    try {
      key = rule.key === undefined ? null : rule.key(job.job);
    } catch (error) {
      job.refusal = error;
      this.buffer.push(job);
      return;
    }
    const wait = Math.min(rule.maxWaitSeconds, this.options.batchWaitSeconds ?? rule.maxWaitSeconds);
    this.batches.add(job, key === null ? job.job.queue : `${job.job.queue}\u0000${key}`, rule.maxSize, wait);
  }

  /** Run a batch in one slot; each of its jobs is an attempt of its own. */
  private launchBatch(members: ClaimedJob[]): void {
    const queue = this.core.registry.localQueue(members[0].job.queue) as ResolvedQueue;
    for (let i = 0; i < members.length; i++) this.prefetch.started();
    this.inflight += members.length;
    this.slotsInUse++;
    void runBatch(this.core, members, queue, this.finish, this.host, this.workerId);
  }

  /**
   * An attempt's handler settled, or, when it held its slot to write its outcome alone, it
   * is over. A batched outcome frees the slot now, not when it is written: outcomes are
   * written in batches behind it, and stop() still waits for those writes.
   */
  private attemptSettled(attempt: RunningAttempt): void {
    if (attempt.slotFree) return;
    attempt.slotFree = true;
    this.prefetch.held(performance.now() - attempt.startedAt);
    this.running.delete(attempt.token);
    // The jobs of a batch share its slot: the last of them frees it.
    const { batch } = attempt;
    if (batch === undefined || --batch.open === 0) this.slotsInUse--;
    this.holdRelease(attempt.queue);
    this.dispatch();
    // A loop waiting for room claims again once the buffer runs low. A loop that found
    // the queues empty sleeps on: a NOTIFY or its poll says when work arrives. A capped
    // queue's finished job makes room only in that queue: claim for it at once.
    const capped = this.core.registry.localQueue(attempt.queue)?.concurrency !== undefined;
    // A batch queue's claims are sized to its batches, not to the free slots: claim for it too.
    if ((this.wakeup.waitingForRoom && this.wanted() > 0) || capped || batch?.open === 0) this.wakeup.wake();
  }

  /** An attempt is over, its outcome written or given up. */
  private attemptFinished(attempt: RunningAttempt): void {
    this.attemptSettled(attempt);
    this.writing.delete(attempt.token);
    this.inflight--;
    if (this.inflight === 0) this.onIdle?.();
    // Claims paused on a backlog of unwritten outcomes resume as it drains.
    if (this.wakeup.waitingForRoom && this.writing.size === this.maxWriting - 1) this.wakeup.wake();
    // A job under a key's or the queue's limit held its slot there until this write: jobs a
    // claim had to leave for it may start now, though the loop took the queue for drained.
    if (attempt.holdsLimit && this.worker.isRunning) this.wakeup.nudge();
  }
}
