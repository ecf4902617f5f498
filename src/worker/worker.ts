import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { childLogger, type Logger } from '../log/logger.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import { announceRetention } from '../retention/announce.js';
import type { Subscription } from '../storage/driver/driver.js';
import type { ClaimedJob } from '../storage/storage.js';
import { type RunningAttempt, runAttempt } from './attempt.js';
import { FinishBuffer } from './finish-buffer.js';
import { createWorkerServices, type WorkerService } from './services.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

type State = 'idle' | 'running' | 'stopping';

/**
 * Claims jobs in batches sized to its free slots, runs their handlers, and writes outcomes
 * in batches. Wakes on NOTIFY and polls as a backstop; heartbeats keep its claims alive;
 * periodic services (maintenance tick, sweeps) run beside it.
 */
export class Worker {
  readonly id: string;
  private state: State = 'idle';
  private readonly logger: Logger;
  private readonly running = new Map<string, RunningAttempt>();
  private readonly runningPerQueue = new Map<string, number>();
  private readonly inflight = new Set<Promise<void>>();
  private readonly finish: FinishBuffer;
  private services: WorkerService[] = [];
  private subscription: Subscription | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeLoop: (() => void) | null = null;
  private nudged = false;
  private lastClaimFull = false;
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
    this.finish = new FinishBuffer(core.storage);
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
      announceRetention(this.core, this.options.sweep, this.logger);
    }
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
   * Stop claiming, wait up to `shutdownTimeoutSeconds` for running handlers, then abort the
   * rest and give their jobs back at once (no attempt counted) so another worker takes them.
   */
  stop(): Promise<void> {
    if (this.state === 'idle') return this.stopping ?? Promise.resolve();
    if (this.stopping) return this.stopping;
    this.stopping = this.stopNow().finally(() => {
      this.stopping = null;
    });
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    await this.starting?.catch(() => {});
    this.state = 'stopping';
    this.wakeLoop?.();
    await this.loopDone;
    if (this.inflight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.inflight]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, this.options.shutdownTimeoutSeconds * 1000);
        }),
      ]);
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

  private onNotification(payload: string): void {
    if (payload.startsWith('c:')) {
      this.running.get(payload.slice(2))?.abort('lost');
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
      const free = this.options.concurrency - this.running.size;
      if (free <= 0) {
        await this.sleep(null);
        continue;
      }
      this.nudged = false;
      let requested = 0;
      let claimed: ClaimedJob[] = [];
      try {
        ({ requested, claimed } = await this.claim(free));
        failures = 0;
      } catch (error) {
        failures++;
        this.core.events.emit('error', { scope: 'worker.claim', error });
        this.logger.warn('claim failed; retrying', { error: String(error), failures });
        await this.sleep(Math.min(100 * 2 ** failures, 5_000));
        continue;
      }
      for (const job of claimed) this.launch(job);
      if (this.state !== 'running') break;
      this.lastClaimFull = requested > 0 && claimed.length >= requested;
      if (this.lastClaimFull || this.nudged) continue;
      await this.sleep(this.options.pollIntervalSeconds * 1000);
    }
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
  private async claim(free: number): Promise<{ requested: number; claimed: ClaimedJob[] }> {
    const uncapped: string[] = [];
    const capped: ResolvedQueue[] = [];
    for (const name of this.queueNames()) {
      const queue = this.core.registry.localQueue(name);
      if (!queue?.handler) continue;
      if (queue.concurrency === undefined) uncapped.push(name);
      else capped.push(queue);
    }
    let room = Math.min(free, this.options.fetchBatchSize);
    let requested = 0;
    const claimed: ClaimedJob[] = [];
    const { storage } = this.core;
    if (uncapped.length > 0 && room > 0) {
      requested += room;
      const got = await storage.claimJobs(uncapped, room, this.id, this.options.lockSeconds);
      claimed.push(...got);
      room -= got.length;
    }
    for (const queue of capped) {
      const limit = Math.min(
        room,
        (queue.concurrency as number) - (this.runningPerQueue.get(queue.name) ?? 0),
      );
      if (limit <= 0) continue;
      requested += limit;
      const got = await storage.claimJobs([queue.name], limit, this.id, this.options.lockSeconds);
      claimed.push(...got);
      room -= got.length;
    }
    return { requested, claimed };
  }

  private launch(claimed: ClaimedJob): void {
    const queue = this.core.registry.localQueue(claimed.job.queue) as ResolvedQueue;
    const name = queue.name;
    this.runningPerQueue.set(name, (this.runningPerQueue.get(name) ?? 0) + 1);
    let attempt: RunningAttempt | null = null;
    const done = runAttempt(this.core, claimed, queue, this.finish, (a) => {
      attempt = a;
      this.running.set(a.id, a);
    }).finally(() => {
      if (attempt && this.running.get(attempt.id) === attempt) this.running.delete(attempt.id);
      this.runningPerQueue.set(name, (this.runningPerQueue.get(name) ?? 1) - 1);
      this.inflight.delete(done);
      if (this.lastClaimFull || this.nudged || queue.concurrency !== undefined) this.wakeLoop?.();
    });
    this.inflight.add(done);
  }

  private async extendLocks(): Promise<void> {
    const attempts = [...this.running.values()];
    if (attempts.length === 0) return;
    try {
      const kept = await this.core.storage.extendLocks(
        attempts.map((a) => a.id),
        attempts.map((a) => a.token),
        this.options.lockSeconds,
      );
      for (const attempt of attempts) {
        // Only abort attempts that were running before the heartbeat and still are.
        if (!kept.has(attempt.id) && this.running.get(attempt.id) === attempt) attempt.abort('lost');
      }
    } catch (error) {
      this.core.events.emit('error', { scope: 'worker.heartbeat', error });
      this.logger.warn('heartbeat failed; will try again', { error: String(error) });
    }
  }
}
