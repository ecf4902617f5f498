import type { EngineCore } from '../engine-core.js';
import {
  AncestorInFlightError,
  JobHasChildrenError,
  JobHeldError,
  JobInFlightError,
  JobNotFoundError,
  PartOfWorkflowError,
} from '../errors.js';
import type { AuditEntry } from '../model/audit.js';
import type { TreeDeletion } from '../storage/storage.js';

/**
 * Delete a finished job now, with its checkpoints, signals, fires and unique locks (R9).
 * Refuses a job in flight (cancel first), a job with children (use deleteWorkflowSubtree),
 * a job whose ancestor is in flight (its replay would create the job again), a child of a
 * finished workflow (a retry of it would replay, and create the job again: a tree goes
 * whole, from its top), and a job whose tree a hold keeps. Works while retention is paused: it is not a bulk removal.
 */
export async function deleteJob(core: EngineCore, id: string, audit?: AuditEntry): Promise<void> {
  const outcome = await core.storage.controls.deleteTree(id, true, audit);
  refuseUnlessDeleted(id, outcome, true);
}

/**
 * Delete a finished job and all its descendants, on the same conditions; returns how many went.
 * `audit`, when given, is recorded in the deleting transaction (with the count deleted).
 */
export async function deleteWorkflowSubtree(
  core: EngineCore,
  id: string,
  audit?: AuditEntry,
): Promise<number> {
  const outcome = await core.storage.controls.deleteTree(id, false, audit);
  refuseUnlessDeleted(id, outcome, false);
  return outcome.deleted;
}

function refuseUnlessDeleted(id: string, outcome: TreeDeletion, single: boolean): void {
  if (outcome.members === 0) throw new JobNotFoundError(id);
  const { inFlight, ancestor, hold } = outcome;
  if (single) {
    if (inFlight?.id === id) throw new JobInFlightError(id, inFlight.status);
    if (outcome.members > 1) throw new JobHasChildrenError(id);
  }
  if (inFlight) throw new JobInFlightError(inFlight.id, inFlight.status);
  if (ancestor) throw new AncestorInFlightError(id, ancestor.id, ancestor.status);
  if (hold) throw new JobHeldError(id, hold.id, hold.reason);
  if (outcome.top) throw new PartOfWorkflowError(id, outcome.top.id);
}
