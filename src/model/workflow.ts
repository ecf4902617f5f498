import type { JobStatus } from '../job-status.js';
import type { JobError } from './job.js';

/** A workflow step's stored result. */
export interface CheckpointRow {
  name: string;
  kind: string;
  output: unknown;
  createdAt: Date;
  /**
   * The call's place in its run (1 for the first workflow call), which the determinism guard
   * checks a replay against; null for a checkpoint written before the guard existed.
   */
  seq: number | null;
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

/** Where a job came from and what was made of it by `tm.forkJob`. */
export interface JobLineage {
  /** The job this one is a fork of (its id, even once that job is deleted), or null. */
  forkedFrom: string | null;
  /** The forks made of this job, oldest first (the first 100). */
  forks: string[];
}
