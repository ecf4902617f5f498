import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { EngineCore } from '../engine-core.js';
import { codeOf, WorkerIdInUseError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import { OnceLogger } from '../log/once.js';
import type { WorkerSettings } from '../model/worker.js';
import type { WorkerHolder, WorkerRegistration } from '../storage/storage.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/** Registrations of this process that are between register and remove. */
const liveHere = new Set<string>();

/**
 * The worker's row in the `workers` table: written on start, beaten with the running count
 * on the heartbeat's cadence, deleted on stop. It only describes the worker: a failure here
 * never stops job processing (it is logged once), and a beat that finds no row (deleted as
 * gone while this worker hung, or never written) registers again.
 *
 * Each registration has a token of its own, so two processes under one `id` never touch each
 * other's row: a start under the id of a live worker of another process is refused with
 * WorkerIdInUseError, and a stop deletes only its own row.
 */
export class WorkerPresence {
  private readonly registration: Omit<WorkerRegistration, 'startedAt' | 'replaces'>;
  private startedAt: Date | null = null;
  /** Between register and remove: a beat may register again only then. */
  private active = false;
  /** The beat under way, which remove waits for, so no late beat writes the row back. */
  private beating: Promise<void> = Promise.resolve();
  private readonly once: OnceLogger;

  constructor(
    private readonly core: EngineCore,
    id: string,
    options: ResolvedWorkerOptions,
    logger: Logger,
  ) {
    this.once = new OnceLogger(logger);
    this.registration = {
      id,
      instance: randomUUID(),
      host: hostname(),
      pid: process.pid,
      queues: options.queues ?? null,
      concurrency: options.concurrency,
      settings: effectiveSettings(core, options),
      heartbeatSeconds: heartbeatSeconds(options.lockSeconds),
    };
  }

  /** Write the row; refused with WorkerIdInUseError when a live worker of another process has the id. */
  async register(): Promise<void> {
    this.active = true;
    const refusal = await this.write();
    if (refusal) {
      this.active = false;
      throw refusal;
    }
    liveHere.add(this.registration.instance);
  }

  /** One beat; what the database answered when it did not take it (null when it did). */
  beat(running: number): Promise<unknown> {
    const beat = this.beatOnce(running);
    this.beating = beat.then(() => {});
    return beat;
  }

  async remove(): Promise<void> {
    this.active = false;
    liveHere.delete(this.registration.instance);
    await this.beating;
    try {
      await this.core.storage.workers.unregisterWorker(this.registration.id, this.registration.instance);
    } catch (error) {
      this.failed(error);
    }
    this.startedAt = null;
  }

  /** Write the row, or say who holds the id; a database failure is logged, not thrown. */
  private async write(): Promise<WorkerIdInUseError | null> {
    const { storage } = this.core;
    const { id } = this.registration;
    let replaces: string | null = null;
    try {
      // A holder judged dead is taken over; one that appears or goes meanwhile is read again.
      for (let round = 0; round < 3; round++) {
        const startedAt = await storage.workers.registerWorker({
          ...this.registration,
          startedAt: this.startedAt,
          replaces,
        });
        if (startedAt) {
          this.startedAt = startedAt;
          return null;
        }
        const holder = await storage.workers.readWorkerHolder(id);
        if (holder === null || holderIsDead(holder)) {
          replaces = holder?.instance ?? null;
          continue;
        }
        return new WorkerIdInUseError(
          id,
          holder.host,
          holder.pid,
          holder.beatSecondsAgo,
          holder.goneAfterSeconds,
        );
      }
    } catch (error) {
      this.failed(error);
    }
    return null;
  }

  private async beatOnce(running: number): Promise<unknown> {
    try {
      const { id, instance } = this.registration;
      const found = await this.core.storage.workers.beatWorker(id, instance, running);
      if (found || !this.active) return null;
      // The row was deleted (gone while this worker hung), or another process took the id.
      const refusal = await this.write();
      if (refusal) this.once.warn('presence-taken', refusal.message, { workerId: id });
      return null;
    } catch (error) {
      this.failed(error);
      return error;
    }
  }

  private failed(error: unknown): void {
    this.once.warn(
      'presence',
      'could not write this worker to the workers table; jobs run on, the dashboard may not list it',
      { error: String(error) },
    );
  }
}

/**
 * A live row of the same id whose process is known to be gone: written on this host by this
 * process under a registration that has ended, or by a process that no longer exists (a
 * worker restarted with a fixed id after a crash). A row from another host is taken as live.
 */
function holderIsDead(holder: WorkerHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return !liveHere.has(holder.instance);
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return codeOf(error) === 'ESRCH';
  }
}

/** Seconds between heartbeats: a third of the lock, so one late beat loses no claim. */
export function heartbeatSeconds(lockSeconds: number): number {
  return lockSeconds / 3;
}

/** What the worker really runs: a storage without the retention capability runs no sweep. */
function effectiveSettings(core: EngineCore, options: ResolvedWorkerOptions): WorkerSettings {
  const sweeps = core.storage.hasRetention;
  return {
    sweep: sweeps ? options.sweep : false,
    uniqueLockSweep: sweeps ? options.uniqueLockSweep : false,
    tickIntervalSeconds: options.tickIntervalSeconds,
  };
}
