import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { retentionTurn } from '../maintenance/retention-sweep/turn.js';
import type { MaintenanceService } from '../maintenance/service.js';
import { sweepInputs, sweepService } from '../maintenance/sweeps.js';
import { tickService } from '../maintenance/tick/service.js';
import { type TickHooks, tickInputs } from '../maintenance/tick/tick.js';
import { uniqueLockTurn } from '../maintenance/unique-lock-sweep/turn.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

export type { MaintenanceService as WorkerService } from '../maintenance/service.js';

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
): MaintenanceService[] {
  const report = (scope: string) => (error: unknown) => {
    core.events.emit('error', { scope, error });
    logger.error(`${scope} failed`, { error: String(error) });
  };
  const services = [
    tickService(tickInputs(core), options.tickIntervalSeconds, tickHooks, report('maintenance tick')),
  ];
  // Engine `retention: false` only changes the default policy: jobs whose queue or job set
  // their own windows are still swept. A storage without the capability runs no sweep.
  if (!core.storage.hasRetention) return services;
  if (options.sweep) {
    const inputs = sweepInputs(core, 'sweep');
    services.push(sweepService('retention', retentionTurn, inputs, options.sweep, report('retention sweep')));
  }
  if (options.uniqueLockSweep) {
    const inputs = sweepInputs(core, 'unique-lock sweep');
    services.push(
      sweepService(
        'unique-locks',
        uniqueLockTurn,
        inputs,
        options.uniqueLockSweep,
        report('unique-lock sweep'),
      ),
    );
  }
  return services;
}
