import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { RunEvery } from '../maintenance/run-every.js';
import { runTick, type TickHooks } from '../maintenance/tick.js';
import { retentionTurn, uniqueLockTurn } from '../retention/sweep-turns.js';
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
 * turned off; the unique-lock sweep unless turned off (on even when retention is off).
 * Neither sweep runs on a storage without the retention capability. Each sweep runs on
 * one node per interval across the cluster.
 */
export function createWorkerServices(
  core: EngineCore,
  options: ResolvedWorkerOptions,
  logger: Logger,
  tickHooks: TickHooks = {},
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
      new RunEvery(
        tick,
        () => runTick(core, tick, tickHooks),
        report('maintenance tick'),
        tick * Math.random(),
      ),
    ),
  );
  // Engine `retention: false` only changes the default policy: jobs whose queue or job set
  // their own windows are still swept. A storage without the capability runs no sweep.
  const sweep = options.sweep;
  if (sweep && core.storage.hasRetention) {
    const run = () => retentionTurn(core, sweep);
    services.push(
      service(
        'retention',
        new RunEvery(sweep.intervalSeconds, run, report('retention sweep'), 1 + Math.random() * 4),
      ),
    );
  }
  const locks = options.uniqueLockSweep;
  if (locks && core.storage.hasRetention) {
    const run = () => uniqueLockTurn(core, locks);
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
