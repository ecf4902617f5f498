import { type MaintenanceService, periodicService } from '../service.js';
import type { ResolvedSweep } from '../sweep-option.js';
import type { SweepInputs } from '../sweeps.js';
import { retentionTurn } from './turn.js';

/** The retention sweep as a worker runs it: its turn every interval, first 1 to 5 s after start. */
export function retentionSweepService(
  inputs: SweepInputs,
  sweep: ResolvedSweep,
  onError: (error: unknown) => void,
): MaintenanceService {
  const run = () => retentionTurn(inputs, sweep);
  return periodicService('retention', sweep.intervalSeconds, run, onError, 1 + Math.random() * 4);
}
