import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { childLogger, type Logger } from '../log/logger.js';
import { DatabaseContact } from '../maintenance/reconnect-grace.js';
import { announceRetention } from '../maintenance/retention-sweep/announce.js';
import type { TickHooks } from '../maintenance/tick/tick.js';
import type { Subscription } from '../storage/storage.js';
import { isConnectionError } from '../storage/storage.js';
import { ClaimLoop } from './claim-loop.js';
import { FinishBuffer } from './finish-buffer.js';
import { Heartbeat } from './heartbeat.js';
import { LOST_LISTEN_WARNING, pollSecondsFor } from './listen-fallback.js';
import { NotesWriter } from './notes-writer.js';
import { WorkerPresence } from './presence.js';
import { RetryWindow } from './retry-window.js';
import { createWorkerServices, type WorkerService } from './services.js';
import { Slots } from './slots.js';
import { Wakeup } from './wakeup.js';
import { type ResolvedWorkerOptions, type StopOptions, stopOptions } from './worker-options.js';

export type { WorkerRecord } from '../model/worker.js';

type State = 'idle' | 'running' | 'stopping';

/** How long a tick waits for this worker's held outcomes before it skips recovery for this turn. */
const HELD_OUTCOMES_WAIT_MS = 2_000;

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
  private readonly finish: FinishBuffer;
  /** Writes what this worker's handlers say of their jobs (progress, metadata, log). */
  private readonly notes: NotesWriter;
  /** Outcomes are retried while the worker runs, and until the shutdown timeout once it stops. */
  private readonly retryWindow = new RetryWindow();
  private readonly wakeup = new Wakeup();
  private readonly slots: Slots;
  private readonly claims: ClaimLoop;
  private readonly heartbeat: Heartbeat;
  private readonly presence: WorkerPresence;
  /** Whether the database answers this worker's beats and ticks, and since when. */
  private readonly contact = new DatabaseContact();
  private services: WorkerService[] = [];
  private subscription: Subscription | null = null;
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
    this.finish = new FinishBuffer(core.storage.attempts, { window: this.retryWindow, logger: this.logger });
    // Held outcomes are tried again the moment a beat or tick gets through, not up to 2 s later.
    this.contact.whenBack(() => this.retryWindow.wake());
    this.notes = new NotesWriter(core.storage, this.logger);
    this.slots = new Slots(core, options, this.finish, this.notes, this, this.wakeup, this.logger, this.id);
    this.claims = new ClaimLoop(core, options, this.id, this.logger, this, this.slots, this.wakeup);
    this.presence = new WorkerPresence(core, this.id, options, this.logger);
    this.heartbeat = new Heartbeat(
      core,
      options.lockSeconds,
      this.slots,
      this.logger,
      this.presence,
      this.contact,
    );
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
    return this.slots.running.size;
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  /**
   * Whether this worker holds any work: a claim under way, claimed jobs waiting for a slot,
   * attempts running, or outcomes not yet written. The test kit's `runUntilIdle` waits for it
   * to be false.
   */
  get busy(): boolean {
    const { slots } = this;
    return (
      this.claims.claiming ||
      slots.buffer.length > 0 ||
      slots.batches.size > 0 ||
      slots.attemptsInFlight > 0 ||
      slots.givingBack > 0 ||
      slots.arriving > 0
    );
  }

  /** Claim now rather than at the next poll (jobs may have become due without a notification). */
  wake(): void {
    this.wakeup.nudge();
  }

  /** Start claiming. Idempotent; a concurrent call gets the same promise. */
  start(): Promise<void> {
    if (this.state === 'running') return this.starting ?? Promise.resolve();
    if (this.state === 'stopping') return (this.stopping ?? Promise.resolve()).then(() => this.start());
    this.state = 'running';
    this.starting = this.startNow().catch(async (error) => {
      this.state = 'idle';
      await this.presence.remove();
      await this.subscription?.close().catch(() => {});
      this.subscription = null;
      throw error;
    });
    return this.starting;
  }

  /**
   * The LISTEN connection opens while the pool's connection announces the retention policy
   * and registers the worker, not after: claims still begin only once both are done, but a
   * worker starting on a backlog claimed its first jobs about 45 ms after start() was called,
   * half of it waiting for that connection. Both are let settle before a failure is thrown,
   * so start()'s clean-up closes a subscription that opened anyway.
   */
  private async startNow(): Promise<void> {
    await this.core.registry.flush();
    const [listening, prepared] = await Promise.allSettled([
      this.core.storage.listen(
        (payload) => this.onNotification(payload),
        () => this.wakeup.nudge(),
        (delivers) => this.onProbe(delivers),
      ),
      this.announceAndRegister(),
    ]);
    if (listening.status === 'fulfilled') this.subscription = listening.value;
    if (prepared.status === 'rejected') throw prepared.reason;
    if (listening.status === 'rejected') throw listening.reason;
    this.services = createWorkerServices(this.core, this.options, this.logger, this.tickHooks());
    for (const service of this.services) service.start();
    this.heartbeat.start();
    this.claims.start();
  }

  private async announceAndRegister(): Promise<void> {
    if (!this.announced) {
      this.announced = true;
      for (const warning of this.warnings) this.logger.warn(warning);
      await announceRetention(this.core, this.options.sweep, this.logger);
    }
    this.retryWindow.closeAt(null);
    await this.presence.register();
  }

  /**
   * Stop claiming, wait up to `shutdownTimeoutSeconds` (or `options.timeoutSeconds`) for
   * running handlers, then abort the rest and give their jobs back at once (no attempt
   * counted) so another worker takes them. A call while a stop is under way joins it, and
   * that stop keeps its own timeout.
   */
  stop(options: StopOptions = {}): Promise<void> {
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
    return stopOptions.read(options).timeoutSeconds ?? this.options.shutdownTimeoutSeconds;
  }

  private async stopNow(timeoutSeconds: number): Promise<void> {
    await this.starting?.catch(() => {});
    this.state = 'stopping';
    // Outcomes the database does not take by then are given up (and logged): their jobs run
    // again once their locks lapse.
    this.retryWindow.closeAt(Date.now() + timeoutSeconds * 1000);
    this.wakeup.wake();
    await this.claims.done;
    await this.slots.releaseBuffer();
    await this.slots.whenIdle(timeoutSeconds * 1000);
    const abandoned = [...this.slots.running.values()];
    for (const attempt of abandoned) attempt.abort('shutdown');
    await this.finish.idle();
    await this.notes.flush();
    if (abandoned.length > 0) {
      await this.core.storage.attempts
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
    this.heartbeat.stop();
    await Promise.all(this.services.map((service) => service.stop()));
    await this.subscription?.close().catch(() => {});
    this.subscription = null;
    await this.presence.remove();
    this.state = 'idle';
    this.starting = null;
  }

  /**
   * A live worker wins over stalled recovery once the database answers again: its tick
   * recovers nothing until the database has answered for the reconnect grace, and, when this
   * worker's beats or writes have been failing, only after it has written its held outcomes
   * (waiting up to 2 s) and extended its locks (so recovery finds none of its jobs lapsed).
   * Other nodes' recovery spares its jobs while its beat is fresh.
   */
  private tickHooks(): TickHooks {
    return {
      answered: () => this.contact.answered(),
      failed: (error) => {
        if (isConnectionError(error)) this.contact.failed();
      },
      beforeRecovery: async () => {
        if (!this.contact.steady()) return false;
        // Beating and writing as usual: every lock it holds was extended a beat ago at most.
        if (!this.heartbeat.failing && !this.finish.failing) return true;
        // Held outcomes first (up to a bound: a write that keeps failing must not stop recovery
        // for good); the beat extends every lock this worker holds, held outcomes' included, so
        // once it lands nothing of this worker's is lapsed.
        const [, extended] = await Promise.all([
          this.finish.writtenWithin(HELD_OUTCOMES_WAIT_MS),
          this.heartbeat.beat(),
        ]);
        return extended;
      },
    };
  }

  /** Services of this worker (for `tm.sweep()` and tests). */
  service(name: string): WorkerService | undefined {
    return this.services.find((s) => s.name === name);
  }

  /**
   * Notifications that never arrive (a pooler in transaction mode) leave only the poll to wake
   * the claim loop: poll faster then, and say once per engine what happened and what to do.
   */
  private onProbe(delivers: boolean): void {
    const pollSeconds = pollSecondsFor(delivers, this.options.pollIntervalSeconds);
    this.claims.pollSeconds = pollSeconds;
    if (!delivers) {
      this.core.once.warn('listen-lost', LOST_LISTEN_WARNING, { pollIntervalSeconds: pollSeconds });
    }
    // End a sleep begun at the old interval: the next one takes the new.
    this.wakeup.nudge();
  }

  private onNotification(payload: string): void {
    if (payload.startsWith('c:')) {
      // c:<job id>:<lock token of the attempt cancelled>
      this.slots.cancelled(payload.slice(payload.indexOf(':', 2) + 1));
      return;
    }
    if (payload.startsWith('j:') && this.claims.queueNames().includes(payload.slice(2))) this.wakeup.nudge();
  }
}
