/** Every status a job can be in (SPEC section 3). */
export const JobStatus = {
  PENDING: 'pending',
  ACTIVE: 'active',
  RETRY: 'retry',
  WAITING: 'waiting',
  PAUSED: 'paused',
  COMPLETED: 'completed',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  EXPIRED: 'expired',
} as const;

export type JobStatus = (typeof JobStatus)[keyof typeof JobStatus];

/** A terminal status, and the name of its retention window. */
export type FinishedStatus = 'completed' | 'failed' | 'cancelled' | 'expired';

/** Terminal statuses: the job will not run again unless retried by hand. */
export const FINISHED_STATUSES: readonly FinishedStatus[] = ['completed', 'failed', 'cancelled', 'expired'];
/** Statuses of jobs that may still run: never deleted by retention or purge (R1). */
export const IN_FLIGHT_STATUSES: readonly JobStatus[] = ['pending', 'active', 'retry', 'waiting', 'paused'];
export const ALL_STATUSES: readonly JobStatus[] = [...IN_FLIGHT_STATUSES, ...FINISHED_STATUSES];

/** The same lists as sets of names, so that any string can be looked up in them. */
const FINISHED: ReadonlySet<string> = new Set<string>(FINISHED_STATUSES);
const ALL: ReadonlySet<string> = new Set<string>(ALL_STATUSES);

export function isFinished(status: string): status is FinishedStatus {
  return FINISHED.has(status);
}

export function isJobStatus(value: unknown): value is JobStatus {
  return typeof value === 'string' && ALL.has(value);
}
