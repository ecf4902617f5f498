import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { childLogger, type Logger } from '../log/logger.js';
import { checkKnownKeys, checkObject, checkSeconds } from '../options/check.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import { announceRetention } from '../retention/announce.js';
import type { Subscription } from '../storage/driver/driver.js';
import type { ClaimedJob } from '../storage/storage.js';
import { runAttempt } from './attempt.js';
import { FinishBuffer } from './finish-buffer.js';
import { JobBuffer } from './job-buffer.js';
import { PrefetchSizer } from './prefetch.js';
import { RetryWindow } from './retry-window.js';
import type { AttemptHost, RunningAttempt } from './running-attempt.js';
import { createWorkerServices, type WorkerService } from './services.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

type State = 'idle' | 'running' | 'stopping';

/**
 * Claims jobs in batches, runs their handlers, and writes outcomes in batches. Claims are
 * sized to the free slots plus a small prefetch buffer (see PrefetchSizer) and run while
 * earlier outcomes are being written, so a busy worker's slots never wait on a round trip.
 * Wakes on NOTIFY and polls as a backstop; heartbeats keep its claims (running and
 * buffered) alive; periodic services (maintenance tick, sweeps) run beside it.
 */
export class Worker {
  readonly id: string;
  private state: State = 'idle';
  private readonly logger: Logger;
  /**
   * Running attempts by lock token, not job id: a worker can reclaim its own stalled job
   * while the old attempt still runs, and both hold a slot until they settle.
   */
  private readonly running = new Map<string, RunningAttempt>();
  /**
   * Settled attempts whose outcome is still being written, by lock token. Their locks are
   * extended too: a write held through a database outage must still own its row when it lands.
   */
  private readonly writing = new Map<string, RunningAttempt>();
  /**
   * Claims pause while this many outcomes wait to be written, so a database that takes claims
   * but not outcomes cannot make the worker hold an ever-growing backlog in memory.
   */
  private readonly maxWriting: number;
  /** Running plus buffered attempts per queue, so a queue's cap also bounds what it prefetches. */
  private readonly heldPerQueue = new Map<string, number>();
  /** Attempts started and not yet over (their outcome may still be being written). */
  private inflight = 0;
  /** Resolves stop()'s wait once `inflight` reaches 0. */
  private onIdle: (() => void) | null = null;
  /** What attempts report to: made once, so a job costs no closures. */
  private readonly host: AttemptHost = {
    register: (attempt) => this.running.set(attempt.token, attempt),
    settled: (attempt) => {
      this.attemptSettled(attempt);
      this.writing.set(attempt.token, attempt);
    },
    finished: (attempt) => this.attemptFinished(attempt),
  };
  /** Claimed jobs waiting for a free slot, in claim order. */
  private readonly buffer = new JobBuffer();
  private readonly prefetch: PrefetchSizer;
  private readonly finish: FinishBuffer;
  /** Outcomes are retried while the worker runs, and until the shutdown timeout once it stops. */
  private readonly retryWindow = new RetryWindow();
  private services: WorkerService[] = [];
  private subscription: Subscription | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeLoop: (() => void) | null = null;
  private nudged = false;
  /** The last claim got every job it asked for: more work is probably waiting. */
  private lastClaimFull = false;
  private waitingForRoom = false;
  private starting: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  private announced = false;

  constructor(
    private readonly core: EngineCore,
    readonly options: ResolvedWorkerOptions,
    private readonly warnings: string[],
  ) {
    this.id = options.id ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
    this.logger = childLogger(core.logger, { worker: this.id });
    this.finish = new FinishBuffer(core.storage, { window: this.retryWindow, logger: this.logger });
    this.maxWriting = Math.max(1_000, 2 * options.concurrency);
    this.prefetch = new PrefetchSizer(options.prefetch);
    options.queues?.forEach((name, index) => {
      if (!core.registry.localQueue(name)?.handler) {
        throw new InvalidOptionError(
          `queues[${index}]`,
          'a queue created in this process with a handler',
          name,
        );
      }
    });
  }

  /** Number of attempts running now. */
  get activeCount(): number {
    return this.running.size;
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  /** Start claiming. Idempotent; a concurrent call gets the same promise. */
  start(): Promise<void> {
    if (this.state === 'running') return this.starting ?? Promise.resolve();
    if (this.state === 'stopping') return (this.stopping ?? Promise.resolve()).then(() => this.start());
    this.state = 'running';
    this.starting = this.startNow().catch(async (error) => {
      this.state = 'idle';
      await this.subscription?.close().catch(() => {});
      this.subscription = null;
      throw error;
    });
    return this.starting;
  }

  private async startNow(): Promise<void> {
    await this.core.registry.flush();
    if (!this.announced) {
      this.announced = true;
      for (const warning of this.warnings) this.logger.warn(warning);
      await announceRetention(this.core, this.options.sweep, this.logger);
    }
    this.retryWindow.closeAt(null);
    this.services = createWorkerServices(this.core, this.options, this.logger);
    this.subscription = await this.core.storage.driver.listen(
      this.core.storage.channel,
      (payload) => this.onNotification(payload),
      () => this.nudge(),
    );
    for (const service of this.services) service.start();
    this.heartbeat = setInterval(() => void this.extendLocks(), (this.options.lockSeconds * 1000) / 3);
    this.heartbeat.unref();
    this.loopDone = this.loop();
  }

  /**
   * Stop claiming, wait up to `shutdownTimeoutSeconds` (or `options.timeoutSeconds`) for
   * running handlers, then abort the rest and give their jobs back at once (no attempt
   * counted) so another worker takes them. A call while a stop is under way joins it, and
   * that stop keeps its own timeout.
   */
  stop(options: { timeoutSeconds?: number } = {}): Promise<void> {
    let timeoutSeconds: number;
    try {
      timeoutSeconds = this.stopTimeout(options);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.state === 'idle') return this.stopping ?? Promise.resolve();
    if (this.stopping) return this.stopping;
    this.stopping = this.stopNow(timeoutSeconds).finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  private stopTimeout(options: unknown): number {
    const input = checkObject(options, 'options');
    checkKnownKeys(input, '', ['timeoutSeconds']);
    if (input.timeoutSeconds === undefined) return this.options.shutdownTimeoutSeconds;
    return checkSeconds(input.timeoutSeconds, 'timeoutSeconds', { max: 86_400 });
  }

  private async stopNow(timeoutSeconds: number): Promise<void> {
    await this.starting?.catch(() => {});
    this.state = 'stopping';
    // Outcomes the database does not take by then are given up (and logged): their jobs run
    // again once their locks lapse.
    this.retryWindow.closeAt(Date.now() + timeoutSeconds * 1000);
    this.wakeLoop?.();
    await this.loopDone;
    await this.releaseBuffer();
    if (this.inflight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.onIdle = resolve;
        timer = setTimeout(resolve, timeoutSeconds * 1000);
      });
      this.onIdle = null;
      clearTimeout(timer);
    }
    const abandoned = [...this.running.values()];
    for (const attempt of abandoned) attempt.abort('shutdown');
    await this.finish.idle();
    if (abandoned.length > 0) {
      await this.core.storage
        .releaseJobs(
          abandoned.map((a) => a.id),
          abandoned.map((a) => a.token),
        )
        .catch((error) =>
          this.logger.warn('could not release jobs on stop; their locks will lapse', {
            error: String(error),
          }),
        );
    }
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    await Promise.all(this.services.map((service) => service.stop()));
    await this.subscription?.close().catch(() => {});
    this.subscription = null;
    this.state = 'idle';
    this.starting = null;
  }

  /** Services of this worker (for `tm.sweep()` and tests). */
  service(name: string): WorkerService | undefined {
    return this.services.find((s) => s.name === name);
  }

  /** Give back the claimed jobs no slot has started, so another worker takes them now. */
  private async releaseBuffer(): Promise<void> {
    const held = this.buffer.drain();
    if (held.length === 0) return;
    for (const claimed of held) this.holdRelease(claimed.job.queue);
    await this.core.storage
      .releaseJobs(
        held.map((c) => c.job.id),
        held.map((c) => c.token),
      )
      .catch((error) =>
        this.logger.warn('could not release prefetched jobs on stop; their locks will lapse', {
          error: String(error),
        }),
      );
  }

  private onNotification(payload: string): void {
    if (payload.startsWith('c:')) {
      const id = payload.slice(2);
      for (const attempt of this.running.values()) if (attempt.id === id) attempt.abort('lost');
      const dropped = this.buffer.take(id);
      if (dropped) {
        // Cancelled before it started: drop it; its row already says cancelled.
        this.holdRelease(dropped.job.queue);
        this.core.events.emit('job:lost', { id, queue: dropped.job.queue });
      }
      return;
    }
    if (payload.startsWith('j:') && this.queueNames().includes(payload.slice(2))) this.nudge();
  }

  private nudge(): void {
    this.nudged = true;
    this.wakeLoop?.();
  }

  private queueNames(): string[] {
    if (this.options.queues) return this.options.queues;
    return this.core.registry.localNames().filter((name) => this.core.registry.localQueue(name)?.handler);
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.state === 'running') {
      const want = this.wanted();
      if (want <= 0) {
        this.waitingForRoom = true;
        await this.sleep(null);
        this.waitingForRoom = false;
        continue;
      }
      this.nudged = false;
      let requested = 0;
      let claimed: ClaimedJob[] = [];
      try {
        const started = performance.now();
        ({ requested, claimed } = await this.claim(want));
        this.prefetch.claimed(performance.now() - started);
        failures = 0;
      } catch (error) {
        failures++;
        this.core.events.emit('error', { scope: 'worker.claim', error });
        this.logger.warn('claim failed; retrying', { error: String(error), failures });
        await this.sleep(Math.min(100 * 2 ** failures, 5_000));
        continue;
      }
      if (claimed.length > 0) {
        for (const job of claimed) this.buffer.push(job);
        this.dispatch();
      }
      if (this.state !== 'running') break;
      this.lastClaimFull = requested > 0 && claimed.length >= requested;
      if (this.lastClaimFull || this.nudged) continue;
      await this.sleep(this.options.pollIntervalSeconds * 1000);
    }
  }

  /**
   * Jobs to claim now: enough to fill the free slots and the prefetch target, once the
   * buffer has drained to half the target (so claims come in batches, not one per job).
   */
  private wanted(): number {
    const target = this.prefetch.target();
    if (this.buffer.length > target >> 1 || this.writing.size >= this.maxWriting) return 0;
    const want = this.options.concurrency + target - this.running.size - this.buffer.length;
    return Math.min(want, this.options.fetchBatchSize);
  }

  /** Start buffered jobs while slots are free. */
  private dispatch(): void {
    while (this.running.size < this.options.concurrency && this.buffer.length > 0) {
      this.launch(this.buffer.shift() as ClaimedJob);
    }
  }

  private holdRelease(queue: string): void {
    this.heldPerQueue.set(queue, (this.heldPerQueue.get(queue) ?? 1) - 1);
  }

  /** Wait for a nudge, a freed slot after a full claim, or the timeout (null: no timeout). */
  private sleep(ms: number | null): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === null ? null : setTimeout(() => done(), ms);
      const done = () => {
        if (timer) clearTimeout(timer);
        this.wakeLoop = null;
        resolve();
      };
      this.wakeLoop = done;
    });
  }

  /** One claim statement for queues without a concurrency cap, one per capped queue with room. */
  private async claim(wanted: number): Promise<{ requested: number; claimed: ClaimedJob[] }> {
    const uncapped: string[] = [];
    const capped: ResolvedQueue[] = [];
    for (const name of this.queueNames()) {
      const queue = this.core.registry.localQueue(name);
      if (!queue?.handler) continue;
      if (queue.concurrency === undefined) uncapped.push(name);
      else capped.push(queue);
    }
    let room = wanted;
    let requested = 0;
    const claimed: ClaimedJob[] = [];
    const { storage } = this.core;
    const take = (jobs: ClaimedJob[]) => {
      for (const job of jobs) {
        claimed.push(job);
        this.heldPerQueue.set(job.job.queue, (this.heldPerQueue.get(job.job.queue) ?? 0) + 1);
      }
      room -= jobs.length;
    };
    if (uncapped.length > 0 && room > 0) {
      requested += room;
      take(await storage.claimJobs(uncapped, room, this.id, this.options.lockSeconds));
    }
    for (const queue of capped) {
      const limit = Math.min(room, (queue.concurrency as number) - (this.heldPerQueue.get(queue.name) ?? 0));
      if (limit <= 0) continue;
      requested += limit;
      take(await storage.claimJobs([queue.name], limit, this.id, this.options.lockSeconds));
    }
    return { requested, claimed };
  }

  private launch(claimed: ClaimedJob): void {
    const queue = this.core.registry.localQueue(claimed.job.queue) as ResolvedQueue;
    this.prefetch.started();
    this.inflight++;
    void runAttempt(this.core, claimed, queue, this.finish, this.host);
  }

  /**
   * An attempt's handler settled. The slot frees now, not when the outcome is written:
   * outcomes are written in batches behind it, and stop() still waits for those writes.
   */
  private attemptSettled(attempt: RunningAttempt): void {
    if (attempt.slotFree) return;
    attempt.slotFree = true;
    this.running.delete(attempt.token);
    this.holdRelease(attempt.queue);
    if (this.state === 'running') this.dispatch();
    // A loop waiting for room claims again once the buffer runs low. A loop that found
    // the queues empty sleeps on: a NOTIFY or its poll says when work arrives. A capped
    // queue's finished job makes room only in that queue: claim for it at once.
    const capped = this.core.registry.localQueue(attempt.queue)?.concurrency !== undefined;
    if ((this.waitingForRoom && this.wanted() > 0) || capped) this.wakeLoop?.();
  }

  /** An attempt is over, its outcome written or given up. */
  private attemptFinished(attempt: RunningAttempt): void {
    this.attemptSettled(attempt);
    this.writing.delete(attempt.token);
    this.inflight--;
    if (this.inflight === 0) this.onIdle?.();
    // Claims paused on a backlog of unwritten outcomes resume as it drains.
    if (this.waitingForRoom && this.writing.size === this.maxWriting - 1) this.wakeLoop?.();
  }

  private async extendLocks(): Promise<void> {
    const attempts = [...this.running.values()];
    const writing = [...this.writing.values()];
    const buffered = this.buffer.toArray();
    if (attempts.length === 0 && writing.length === 0 && buffered.length === 0) return;
    try {
      const kept = await this.core.storage.extendLocks(
        [...attempts.map((a) => a.id), ...writing.map((a) => a.id), ...buffered.map((c) => c.job.id)],
        [...attempts.map((a) => a.token), ...writing.map((a) => a.token), ...buffered.map((c) => c.token)],
        this.options.lockSeconds,
      );
      for (const attempt of attempts) {
        // Only abort attempts that were running before the heartbeat and still are.
        if (!kept.has(attempt.token) && this.running.get(attempt.token) === attempt) attempt.abort('lost');
      }
    } catch (error) {
      this.core.events.emit('error', { scope: 'worker.heartbeat', error });
      this.logger.warn('heartbeat failed; will try again', { error: String(error) });
    }
  }
}
