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

export function isFinished(status: string): status is FinishedStatus {
  return (FINISHED_STATUSES as readonly string[]).includes(status);
}

export function isJobStatus(value: unknown): value is JobStatus {
  return typeof value === 'string' && (ALL_STATUSES as readonly string[]).includes(value);
}
