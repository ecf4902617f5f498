import { hostname } from 'node:os';
import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { OnceLogger } from '../log/once.js';
import type { WorkerSettings } from '../model/worker.js';
import type { WorkerRegistration } from '../storage/storage.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/**
 * The worker's row in the `workers` table: written on start, beaten with the running count
 * on the heartbeat's cadence, deleted on stop. It only describes the worker: a failure here
 * never stops job processing (it is logged once), and a beat that finds no row (deleted as
 * gone while this worker hung, or never written) registers again.
 */
export class WorkerPresence {
  private readonly registration: Omit<WorkerRegistration, 'startedAt'>;
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
      host: hostname(),
      pid: process.pid,
      queues: options.queues ?? null,
      concurrency: options.concurrency,
      settings: effectiveSettings(core, options),
      heartbeatSeconds: heartbeatSeconds(options.lockSeconds),
    };
  }

  async register(): Promise<void> {
    this.active = true;
    await this.write();
  }

  /** One beat; what the database answered when it did not take it (null when it did). */
  beat(running: number): Promise<unknown> {
    const beat = this.beatOnce(running);
    this.beating = beat.then(() => {});
    return beat;
  }

  async remove(): Promise<void> {
    this.active = false;
    await this.beating;
    try {
      await this.core.storage.unregisterWorker(this.registration.id);
    } catch (error) {
      this.failed(error);
    }
    this.startedAt = null;
  }

  private async write(): Promise<void> {
    try {
      this.startedAt = await this.core.storage.registerWorker({
        ...this.registration,
        startedAt: this.startedAt,
      });
    } catch (error) {
      this.failed(error);
    }
  }

  private async beatOnce(running: number): Promise<unknown> {
    try {
      const found = await this.core.storage.beatWorker(this.registration.id, running);
      if (!found && this.active) await this.write();
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
