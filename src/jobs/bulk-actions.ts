import type { EngineCore } from '../engine-core.js';
import { InvalidJobStateError, JobNotFoundError, UniqueKeyConflictError } from '../errors.js';
import { bulkBatchByIds, bulkBatchByStatus, bulkCeiling } from '../storage/sql/bulk.js';
import {
  type BulkActionName,
  type BulkActionOptions,
  type BulkJobFilter,
  type CheckedBulkRequest,
  checkBulkRequest,
} from './bulk-filter.js';

export type { BulkActionName, BulkActionOptions, BulkJobFilter } from './bulk-filter.js';

import { cancelJobTree } from './job-actions.js';
import { retryJobTree } from './retry-job.js';

/** Why a bulk action left a matching job as it was. */
export type BulkRefusalReason = 'not-retryable' | 'unique-key-conflict' | 'not-in-flight' | 'not-found';

/** One job a bulk action left as it was, with the engine's message. */
export interface BulkRefusal {
  id: string;
  reason: BulkRefusalReason;
  message: string;
}

/** What `tm.retryJobs` / `tm.cancelJobs` did (or, on a dry run, would act on). */
export interface BulkOutcome {
  action: BulkActionName;
  dryRun: boolean;
  /** Jobs the filter matched (jobs added after the call began are never matched). */
  matched: number;
  /** Jobs retried or cancelled; 0 on a dry run. */
  done: number;
  /** Matching jobs left as they were, counted by reason. */
  refused: Partial<Record<BulkRefusalReason, number>>;
  /** The first refusals (up to 20), each with its job and message. */
  refusals: BulkRefusal[];
  /** Selection statements run, each choosing at most `batchSize` jobs. */
  batches: number;
}

const MAX_LISTED_REFUSALS = 20;

/**
 * Retry or cancel every job matching a filter. Jobs are chosen in bounded batches by keyset
 * (oldest id first, so a workflow's parent comes before its children) and each goes
 * through the same use case as `tm.retryJob` / `tm.cancelJob`, so every rule of those
 * holds unchanged. A job the engine refuses is counted by reason and the rest go on; any
 * other error stops the action, keeping what earlier jobs had done.
 */
export async function bulkAction(
  core: EngineCore,
  action: BulkActionName,
  filter: BulkJobFilter,
  options: BulkActionOptions = {},
): Promise<BulkOutcome> {
  const request = checkBulkRequest(action, filter, options);
  if (request.batchWarning) core.once.warn(request.batchWarning, request.batchWarning);
  const outcome: BulkOutcome = {
    action,
    dryRun: request.dryRun,
    matched: 0,
    done: 0,
    refused: {},
    refusals: [],
    batches: 0,
  };
  const queues = request.queue !== null ? [(await core.registry.get(request.queue)).name] : null;
  const [{ ceiling }] = await core.storage.run(bulkCeiling, {});
  const next = batchReader(core, request, ceiling, queues);
  let after = '0';
  for (;;) {
    const ids = await next(after);
    outcome.batches++;
    outcome.matched += ids.length;
    if (!request.dryRun) await applyToBatch(core, action, ids, outcome);
    if (ids.length < request.batchSize) return outcome;
    after = ids[ids.length - 1];
  }
}

function batchReader(
  core: EngineCore,
  request: CheckedBulkRequest,
  ceiling: string,
  queues: string[] | null,
): (after: string) => Promise<string[]> {
  const window = {
    ceiling,
    from: request.from,
    to: request.to,
    pattern: request.pattern,
    limit: request.batchSize,
  };
  return async (after) => {
    const rows =
      request.ids !== null
        ? await core.storage.run(bulkBatchByIds, {
            ...window,
            after,
            ids: request.ids,
            queue: request.queue,
            status: request.status,
          })
        : await core.storage.run(bulkBatchByStatus, {
            ...window,
            after,
            queues: queues ?? (await core.storage.listQueues()).map((q) => q.name),
            status: request.status!,
          });
    return rows.map((r) => r.id);
  };
}

async function applyToBatch(
  core: EngineCore,
  action: BulkActionName,
  ids: string[],
  outcome: BulkOutcome,
): Promise<void> {
  const batch = new Set(ids);
  // A parent's retry or cancel also changes its descendants: one chosen in this batch too
  // is done already, not a job to refuse.
  const changedWithTree = new Set<string>();
  for (const id of ids) {
    if (changedWithTree.has(id)) {
      outcome.done++;
      continue;
    }
    try {
      const changed = await applyToJob(core, action, id);
      if (changed === null) {
        refuse(outcome, id, 'not-in-flight', `job ${id} had already finished`);
        continue;
      }
      outcome.done++;
      for (const other of changed) if (other !== id && batch.has(other)) changedWithTree.add(other);
    } catch (error) {
      const reason = refusalReason(error);
      if (reason === null) throw error;
      refuse(outcome, id, reason, (error as Error).message);
    }
  }
}

/** The ids the action changed (the job and descendants), or null when the job was left as it was. */
async function applyToJob(core: EngineCore, action: BulkActionName, id: string): Promise<string[] | null> {
  if (action === 'retry') return (await retryJobTree(core, id)).reopened;
  const { cancelled } = await cancelJobTree(core, id);
  return cancelled.includes(id) ? cancelled : null;
}

function refusalReason(error: unknown): BulkRefusalReason | null {
  if (error instanceof UniqueKeyConflictError) return 'unique-key-conflict';
  if (error instanceof JobNotFoundError) return 'not-found';
  if (error instanceof InvalidJobStateError) return 'not-retryable';
  return null;
}

function refuse(outcome: BulkOutcome, id: string, reason: BulkRefusalReason, message: string): void {
  outcome.refused[reason] = (outcome.refused[reason] ?? 0) + 1;
  if (outcome.refusals.length < MAX_LISTED_REFUSALS) outcome.refusals.push({ id, reason, message });
}
