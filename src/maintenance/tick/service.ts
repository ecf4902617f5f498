import { type MaintenanceService, periodicService } from '../service.js';
import { runTick, type TickHooks, type TickInputs } from './tick.js';

/** The maintenance tick as a worker runs it: every `intervalSeconds`, first at a random point of it. */
export function tickService(
  inputs: TickInputs,
  intervalSeconds: number,
  hooks: TickHooks,
  onError: (error: unknown) => void,
): MaintenanceService {
  const run = () => runTick(inputs, intervalSeconds, hooks);
  return periodicService('tick', intervalSeconds, run, onError, intervalSeconds * Math.random());
}
