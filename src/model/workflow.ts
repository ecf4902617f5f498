import type { JobStatus } from '../job-status.js';
import type { JobError } from './job.js';

/** A workflow step's stored result. */
export interface CheckpointRow {
  name: string;
  kind: string;
  output: unknown;
  createdAt: Date;
}

/** A signal sent to a job, pending or consumed by a wait. */
export interface SignalRow {
  id: string;
  name: string;
  payload: unknown;
  createdAt: Date;
  consumedAt: Date | null;
  consumedBy: string | null;
  purgeAfter: Date | null;
  /** `pending` until a wait consumes it. */
  state: 'pending' | 'consumed';
}

/** The child a workflow step started, as the parent reads its outcome. */
export interface ChildOutcome {
  id: string;
  queue: string;
  status: JobStatus;
  output: unknown;
  error: JobError | null;
}
