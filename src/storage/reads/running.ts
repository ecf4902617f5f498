import type { Runner } from '../runner.js';
import { type RunningJobRow, runningJobs } from '../sql/running.js';

export type { RunningJobRow } from '../sql/running.js';

/** The jobs running now, longest running first, at most `limit`. */
export function listRunningJobs(db: Runner, limit: number): Promise<RunningJobRow[]> {
  return db.run(runningJobs, { limit });
}
