import { RunEvery } from './run-every.js';

/** A periodic service a worker runs beside its claim loop. */
export interface MaintenanceService {
  name: 'tick' | 'retention' | 'unique-locks';
  start(): void;
  stop(): Promise<void>;
  runNow(): Promise<void>;
}

/** A service that runs `runOnce` every `intervalSeconds` (see RunEvery), its failures reported. */
export function periodicService(
  name: MaintenanceService['name'],
  intervalSeconds: number,
  runOnce: () => Promise<void>,
  onError: (error: unknown) => void,
  firstDelaySeconds?: number,
): MaintenanceService {
  const loop = new RunEvery(intervalSeconds, runOnce, onError, firstDelaySeconds);
  return { name, start: () => loop.start(), stop: () => loop.stop(), runNow: () => loop.runNow() };
}
