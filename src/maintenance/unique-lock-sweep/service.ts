import { type MaintenanceService, periodicService } from '../service.js';
import type { ResolvedSweep } from '../sweep-option.js';
import type { SweepInputs } from '../sweeps.js';
import { uniqueLockTurn } from './turn.js';

/** The unique-lock sweep as a worker runs it: its turn every interval, first 1 to 5 s after start. */
export function uniqueLockSweepService(
  inputs: SweepInputs,
  sweep: ResolvedSweep,
  onError: (error: unknown) => void,
): MaintenanceService {
  const run = () => uniqueLockTurn(inputs, sweep);
  return periodicService('unique-locks', sweep.intervalSeconds, run, onError, 1 + Math.random() * 4);
}
