import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import type { BatchRule } from '../model/batch.js';
import type { ClaimedJob } from '../storage/storage.js';
import { type GateOutcome, passLimiters } from './limiter-gate.js';
import type { Slots } from './slots.js';
import type { Wakeup } from './wakeup.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/**
 * Claims jobs into the slots' buffer while the worker runs: as many as the slots have room
 * for, again at once while claims come back full or a NOTIFY says work arrived, else after
 * the poll interval. A failed claim is retried after a growing pause.
 */
export class ClaimLoop {
  /** The last claim got every job it asked for: more work is probably waiting. */
  private lastClaimFull = false;
  /** Settles once the loop has ended, after the worker stops running. */
  done: Promise<void> = Promise.resolve();
  /** Seconds between polls: the worker's interval, shorter while notifications are lost. */
  pollSeconds: number;
  /** A claim statement is under way: jobs it takes are in no buffer yet. */
  claiming = false;
  /** When the earliest job a limiter held back is due (epoch ms): the loop claims again then. */
  private nextTurnAt: number | null = null;

  constructor(
    private readonly core: EngineCore,
    private readonly options: ResolvedWorkerOptions,
    private readonly workerId: string,
    private readonly logger: Logger,
    /** The loop runs while the worker does. */
    private readonly worker: { readonly isRunning: boolean },
    private readonly slots: Slots,
    private readonly wakeup: Wakeup,
  ) {
    this.pollSeconds = options.pollIntervalSeconds;
  }

  start(): void {
    this.done = this.loop();
  }

  /** Until the next poll, or the turn of a job a limiter held back, whichever comes first. */
  private sleepMs(): number {
    const poll = this.pollSeconds * 1000;
    if (this.nextTurnAt === null) return poll;
    const untilTurn = this.nextTurnAt - this.core.clock.now();
    if (untilTurn > poll) return poll;
    this.nextTurnAt = null;
    return Math.max(untilTurn, 0);
  }

  /** The queues this worker claims from: those its options name, else each local queue with a handler. */
  queueNames(): string[] {
    if (this.options.queues) return this.options.queues;
    return this.core.registry.localNames().filter((name) => this.core.registry.localQueue(name)?.handler);
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.worker.isRunning) {
      const want = this.slots.wanted();
      if (want <= 0) {
        this.wakeup.waitingForRoom = true;
        await this.wakeup.sleep(null);
        this.wakeup.waitingForRoom = false;
        continue;
      }
      this.wakeup.nudged = false;
      let requested = 0;
      let claimed = 0;
      try {
        const started = performance.now();
        this.claiming = true;
        ({ requested, claimed } = await this.claim(want));
        this.slots.prefetch.claimed(performance.now() - started);
        failures = 0;
      } catch (error) {
        this.claiming = false;
        failures++;
        this.core.events.emit('error', { scope: 'worker.claim', error });
        this.logger.warn('claim failed; retrying', { error: String(error), failures });
        await this.wakeup.sleep(Math.min(100 * 2 ** failures, 5_000));
        continue;
      }
      this.claiming = false;
      if (!this.worker.isRunning) break;
      this.lastClaimFull = requested > 0 && claimed >= requested;
      if (this.lastClaimFull || this.wakeup.nudged) continue;
      await this.wakeup.sleep(this.sleepMs());
    }
  }

  /**
   * One claim statement for queues without a concurrency cap, one per capped queue with room.
   * What each statement claims goes to the buffer (and to free slots) as soon as it returns,
   * not after the last: there the heartbeat covers it and stop() gives it back, while later
   * statements wait for a connection, or fail.
   */
  private async claim(wanted: number): Promise<{ requested: number; claimed: number }> {
    const uncapped: string[] = [];
    // A batch queue claims for its batches, not for the free slots (`batch` is its rule).
    const capped: { name: string; concurrency: number; batch?: BatchRule }[] = [];
    // Queues whose jobs take limiter tokens before they go to the buffer (passLimiters).
    const limited = new Set<string>();
    for (const name of this.queueNames()) {
      const queue = this.core.registry.localQueue(name);
      if (!queue?.handler) continue;
      if (queue.limiterRules) limited.add(name);
      const batch = queue.batchRule;
      if (batch) {
        // Every slot running a full batch, and one more gathering.
        const batches = (this.options.concurrency + 1) * batch.maxSize;
        capped.push({ name, concurrency: Math.min(queue.concurrency ?? batches, batches), batch });
      } else if (queue.concurrency === undefined) uncapped.push(name);
      else capped.push({ name: queue.name, concurrency: queue.concurrency });
    }
    let room = wanted;
    let requested = 0;
    let claimed = 0;
    const { storage } = this.core;
    const { heldPerQueue, buffer } = this.slots;
    const take = (jobs: ClaimedJob[], batch?: BatchRule) => {
      const gated: ClaimedJob[] = [];
      for (const job of jobs) {
        heldPerQueue.set(job.job.queue, (heldPerQueue.get(job.job.queue) ?? 0) + 1);
        if (batch !== undefined) this.slots.gather(job, batch);
        else if (limited.size > 0 && limited.has(job.job.queue)) gated.push(job);
        else buffer.push(job);
      }
      claimed += jobs.length;
      // Batches take one slot for many jobs: the room for single jobs is left as it was.
      if (batch === undefined) room -= jobs.length;
      if (jobs.length > gated.length) this.slots.dispatch();
      if (gated.length > 0) void this.passLimiters(gated);
    };
    if (uncapped.length > 0 && room > 0) {
      requested += room;
      take(await storage.attempts.claimJobs(uncapped, room, this.workerId, this.options.lockSeconds));
    }
    for (const queue of capped) {
      const held = heldPerQueue.get(queue.name) ?? 0;
      const limit = Math.min(queue.batch ? this.options.fetchBatchSize : room, queue.concurrency - held);
      if (limit <= 0) continue;
      requested += limit;
      take(
        await storage.attempts.claimJobs([queue.name], limit, this.workerId, this.options.lockSeconds),
        queue.batch,
      );
    }
    return { requested, claimed };
  }

  /**
   * Take the tokens of claimed jobs of queues with limiters (passLimiters) while the loop
   * claims on, and hand the jobs that may start to the slots; those held back are already
   * back in the database, due at their turn. Should the statement fail, the jobs are given
   * back, as a failed claim's would be.
   */
  private async passLimiters(jobs: ClaimedJob[]): Promise<void> {
    this.slots.arriving += jobs.length;
    let gate: GateOutcome | null = null;
    try {
      gate = await passLimiters(this.core, jobs);
    } catch (error) {
      this.core.events.emit('error', { scope: 'worker.claim', error });
      this.logger.warn('could not take the limiter tokens of claimed jobs; giving them back', {
        error: String(error),
      });
    } finally {
      this.slots.arriving -= jobs.length;
    }
    if (gate === null) return this.slots.giveBack(jobs);
    if (gate.nextTurnAt !== null && (this.nextTurnAt === null || gate.nextTurnAt < this.nextTurnAt)) {
      // An earlier turn than the loop sleeps for: wake it, and it sleeps again until then.
      this.nextTurnAt = gate.nextTurnAt;
      if (!this.claiming) this.wakeup.wake();
    }
    const starting = new Set(gate.start);
    this.slots.admit(
      gate.start,
      jobs.filter((job) => !starting.has(job)),
    );
  }
}
