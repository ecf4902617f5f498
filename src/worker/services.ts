import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { RunEvery } from '../maintenance/run-every.js';
import { runTick } from '../maintenance/tick.js';
import { sweepRetention, sweepUniqueLocks } from '../retention/sweeper.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/** A periodic service a worker runs beside its claim loop. */
export interface WorkerService {
  name: 'tick' | 'retention' | 'unique-locks';
  start(): void;
  stop(): Promise<void>;
  runNow(): Promise<void>;
}

/**
 * The services of one worker: the maintenance tick always; the retention sweep unless
 * turned off (or the storage cannot); the unique-lock sweep unless turned off. Each sweep
 * runs on one node per interval across the cluster.
 */
export function createWorkerServices(
  core: EngineCore,
  options: ResolvedWorkerOptions,
  logger: Logger,
): WorkerService[] {
  const report = (scope: string) => (error: unknown) => {
    core.events.emit('error', { scope, error });
    logger.error(`${scope} failed`, { error: String(error) });
  };
  const services: WorkerService[] = [];
  const tick = options.tickIntervalSeconds;
  services.push(
    service(
      'tick',
      new RunEvery(tick, () => runTick(core, tick), report('maintenance tick'), tick * Math.random()),
    ),
  );
  const sweep = options.sweep;
  if (sweep && core.storage.hasRetention && !core.retentionDisabled) {
    const run = async () => {
      if (!(await core.storage.takeTurn('retention-sweep', sweep.intervalSeconds * 0.9))) return;
      await sweepRetention(core, { batchSize: sweep.batchSize });
    };
    services.push(
      service(
        'retention',
        new RunEvery(sweep.intervalSeconds, run, report('retention sweep'), 1 + Math.random() * 4),
      ),
    );
  }
  const locks = options.uniqueLockSweep;
  if (locks) {
    const run = async () => {
      if (!(await core.storage.takeTurn('unique-lock-sweep', locks.intervalSeconds * 0.9))) return;
      await sweepUniqueLocks(core, locks.batchSize);
    };
    services.push(
      service(
        'unique-locks',
        new RunEvery(locks.intervalSeconds, run, report('unique-lock sweep'), 1 + Math.random() * 4),
      ),
    );
  }
  return services;
}

function service(name: WorkerService['name'], loop: RunEvery): WorkerService {
  return { name, start: () => loop.start(), stop: () => loop.stop(), runNow: () => loop.runNow() };
}
