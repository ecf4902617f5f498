import type { JobStatus } from '../job-status.js';
import type { JobError } from './job.js';

/** The most jobs one job may depend on (`dependsOn`). */
export const MAX_DEPENDENCIES = 1_000;

/**
 * What a dependent does when one of its dependencies ends `failed`, `cancelled` or `expired`:
 * fail at once (`fail`, with a `DependencyFailedError` naming the dependency), be cancelled
 * at once (`cancel`), or count it as finished and run when the others are (`run`).
 */
export type DependencyFailurePolicy = 'fail' | 'cancel' | 'run';

/** One dependency of a job, as `ctx.dependencies()` and `getJobDetail` show it. */
export interface DependencyOutcome {
  /** The dependency's id. */
  id: string;
  /** Its queue; null when the dependency no longer exists (deleted by hand). */
  queue: string | null;
  /** Its status now; null when it no longer exists. */
  status: JobStatus | null;
  /** Its output when it completed (null otherwise). */
  output: unknown;
  /** Its error when it failed (null otherwise). */
  error: JobError | null;
}
