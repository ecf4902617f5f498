import type { Job } from './job.js';
import type { CheckpointRow, SignalRow } from './workflow.js';

/** One job about to be deleted by retention, with everything that goes with it. */
export interface ArchivedJob {
  job: Job;
  checkpoints: CheckpointRow[];
  signals: SignalRow[];
}
