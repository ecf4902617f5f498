import * as attempts from './attempts.js';
import type { Driver } from './driver/driver.js';
import * as actions from './job-actions.js';
import * as jobs from './jobs.js';
import * as maintenance from './maintenance.js';
import * as queues from './queues.js';
import { RetentionControls } from './retention-controls.js';
import { PostgresRetention, type RetentionCapability } from './retention-storage.js';
import { bound, Runner } from './runner.js';
import * as workers from './workers.js';

export type { AttemptOutcome, ClaimedJob } from './attempts.js';
export {
  defaultParams,
  type InsertDefaults,
  type InsertRow,
  insertRowJson,
  retentionField,
} from './insert-rows.js';
export type { WorkerHolder, WorkerRegistration } from './workers.js';

/**
 * The semantic storage layer: every database operation Tidemark performs, each one
 * statement from `sql/`, the same on both drivers. It never logs; callers do. Each group
 * of methods is written in its own file and bound to this storage here.
 */
export class Storage extends Runner {
  /** The optional retention capability (deleting due rows); see RetentionCapability. */
  readonly retention?: RetentionCapability;
  /** The pause switch, holds and explicit deletes, and the gate that orders them. */
  readonly controls: RetentionControls;

  /**
   * @param hasRetention whether this storage offers the retention capability (deleting due
   * rows). Without it everything else works and workers run no sweep.
   */
  constructor(driver: Driver, schema: string, hasRetention = true) {
    super(driver, schema);
    this.controls = new RetentionControls(this);
    if (hasRetention) this.retention = new PostgresRetention(this);
  }

  get hasRetention(): boolean {
    return this.retention !== undefined;
  }

  // queues.ts
  upsertQueue = bound(this, queues.upsertQueue);
  getQueue = bound(this, queues.getQueue);
  listQueues = bound(this, queues.listQueues);
  setQueuePaused = bound(this, queues.setQueuePaused);

  // jobs.ts
  insertJobs = bound(this, jobs.insertJobs);
  findUniqueHolder = bound(this, jobs.findUniqueHolder);
  insertJobWithLock = bound(this, jobs.insertJobWithLock);
  findLockHolder = bound(this, jobs.findLockHolder);
  getJob = bound(this, jobs.getJob);
  getStatuses = bound(this, jobs.getStatuses);
  listChildren = bound(this, jobs.listChildren);

  // attempts.ts: the worker's claims, outcomes, locks and suspensions
  claimJobs = bound(this, attempts.claimJobs);
  finishAttempts = bound(this, attempts.finishAttempts);
  completeOne = bound(this, attempts.completeOne);
  extendLocks = bound(this, attempts.extendLocks);
  suspendJob = bound(this, attempts.suspendJob);
  releaseJobs = bound(this, attempts.releaseJobs);

  // job-actions.ts: operator actions
  cancelSubtree = bound(this, actions.cancelSubtree);
  retrySubtree = bound(this, actions.retrySubtree);
  pauseJob = bound(this, actions.pauseJob);
  resumeJob = bound(this, actions.resumeJob);

  // maintenance.ts
  takeTurn = bound(this, maintenance.takeTurn);
  recordTurnResult = bound(this, maintenance.recordTurnResult);
  readTurn = bound(this, maintenance.readTurn);
  recoverStalled = bound(this, maintenance.recoverStalled);
  expireJobs = bound(this, maintenance.expireJobs);
  promoteRetries = bound(this, maintenance.promoteRetries);
  nudgeDueQueues = bound(this, maintenance.nudgeDueQueues);

  // workers.ts: the workers' own rows (who runs, where, with which settings)
  registerWorker = bound(this, workers.registerWorker);
  beatWorker = bound(this, workers.beatWorker);
  unregisterWorker = bound(this, workers.unregisterWorker);
  readWorkerHolder = bound(this, workers.readWorkerHolder);
  listWorkers = bound(this, workers.listWorkers);
  summarizeWorkers = bound(this, workers.summarizeWorkers);
  deleteGoneWorkers = bound(this, workers.deleteGoneWorkers);
  trimGoneWorkers = bound(this, workers.trimGoneWorkers);
}
