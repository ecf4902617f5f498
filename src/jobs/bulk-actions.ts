import type { EngineCore } from '../engine-core.js';
import {
  BulkSetGrewError,
  InvalidJobStateError,
  InvalidOptionError,
  JobNotFoundError,
  UniqueKeyConflictError,
} from '../errors.js';
import {
  ACTIONABLE,
  type BulkActionName,
  type BulkActionOptions,
  type BulkJobFilter,
  type CheckedBulkRequest,
  checkBulkRequest,
} from './bulk-filter.js';

import { forkJob } from './fork-job.js';

export type { BulkActionName, BulkActionOptions, BulkJobFilter, StateActionName } from './bulk-filter.js';

/** Why a bulk action left a matching job as it was. */
export type BulkRefusalReason =
  | 'changed'
  | 'not-retryable'
  | 'unique-key-conflict'
  | 'not-in-flight'
  | 'not-waiting'
  | 'not-found'
  | 'not-failed'
  | 'no-fork-point';

/** One job a bulk action left as it was, with the engine's message. */
export interface BulkRefusal {
  id: string;
  reason: BulkRefusalReason;
  message: string;
}

/** What `tm.retryJobs`, `tm.cancelJobs`, `tm.runJobsNow` or `tm.forkJobs` did (or, on a dry run, would act on). */
export interface BulkOutcome {
  action: BulkActionName;
  dryRun: boolean;
  /** Jobs the filter matched (jobs added after the call began are never matched). */
  matched: number;
  /** Jobs retried, cancelled, run now or forked; 0 on a dry run. */
  done: number;
  /** Matching jobs left as they were, counted by reason. */
  refused: Partial<Record<BulkRefusalReason, number>>;
  /** The first refusals (up to 20), each with its job and message. */
  refusals: BulkRefusal[];
  /** Selection statements run, each choosing at most `batchSize` jobs. */
  batches: number;
  /** The highest id the action considered: pass it back as `throughId` to act on the same jobs. */
  throughId: string;
}

const MAX_LISTED_REFUSALS = 20;

/**
 * Retry or cancel every job matching a filter. Jobs are chosen in bounded batches by keyset
 * (oldest id first, so a workflow's parent comes before its children) and each goes
 * through the same statement as `tm.retryJob` / `tm.cancelJob`, so every rule of those
 * holds unchanged; that statement checks the filter again on the locked row, so a job that
 * changed after it was chosen (finished, started, retried by someone else) is reported as
 * `changed` and left alone. A job the engine refuses is counted by reason and the rest go
 * on; any other error stops the action, keeping what earlier jobs had done. Given
 * `maxMatched`, the jobs are counted first and the action is refused whole when more match.
 */
export async function bulkAction(
  core: EngineCore,
  action: BulkActionName,
  filter: BulkJobFilter,
  options: BulkActionOptions = {},
): Promise<BulkOutcome> {
  const request = checkBulkRequest(action, filter, options, core.clock.now());
  if (request.batchWarning) core.once.warn(request.batchWarning, request.batchWarning);
  if (request.queue !== null) request.match.queue = (await core.registry.get(request.queue)).name;
  const queues = request.queue !== null ? [request.match.queue!] : null;
  const throughId = request.throughId ?? (await core.storage.bulk.highestJobId());
  if (request.maxMatched !== null && !request.dryRun) {
    const counted = await walk(core, action, { ...request, dryRun: true }, throughId, queues);
    if (counted.matched > request.maxMatched) {
      throw new BulkSetGrewError(action, counted.matched, request.maxMatched);
    }
  }
  return walk(core, action, request, throughId, queues);
}

async function walk(
  core: EngineCore,
  action: BulkActionName,
  request: CheckedBulkRequest,
  throughId: string,
  queues: string[] | null,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = {
    action,
    dryRun: request.dryRun,
    matched: 0,
    done: 0,
    refused: {},
    refusals: [],
    batches: 0,
    throughId,
  };
  const next = batchReader(core, request, throughId, queues);
  const cap = request.dryRun ? null : request.maxMatched;
  let after = '0';
  for (;;) {
    const read = await next(after);
    // Never act on more jobs than were confirmed, even when more came to match meanwhile.
    const ids = cap === null ? read : read.slice(0, cap - outcome.matched);
    outcome.batches++;
    outcome.matched += ids.length;
    if (!request.dryRun) await applyToBatch(core, action, request, ids, outcome);
    if (read.length < request.batchSize || (cap !== null && outcome.matched >= cap)) return outcome;
    after = read[read.length - 1];
  }
}

function batchReader(
  core: EngineCore,
  request: CheckedBulkRequest,
  ceiling: string,
  queues: string[] | null,
): (after: string) => Promise<string[]> {
  return async (after) => {
    const window = { match: request.match, after, ceiling, limit: request.batchSize };
    if (request.ids !== null) return core.storage.bulk.nextBatchByIds(window, request.ids);
    const names = queues ?? (await core.storage.queues.listQueues()).map((q) => q.name);
    return core.storage.bulk.nextBatchByStatus(window, names, request.status!);
  };
}

async function applyToBatch(
  core: EngineCore,
  action: BulkActionName,
  request: CheckedBulkRequest,
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
      const changed = await actOn(core, action, id, request);
      if (!changed.includes(id)) {
        const [reason, message] = await whyLeft(core, action, request, id);
        refuse(outcome, id, reason, message);
        continue;
      }
      outcome.done++;
      for (const other of changed) if (other !== id && batch.has(other)) changedWithTree.add(other);
    } catch (error) {
      // A refusal is one of Tidemark's errors: anything else stops the action.
      const reason = refusalReason(action, error);
      if (reason === null || !(error instanceof Error)) throw error;
      refuse(outcome, id, reason, error.message);
    }
  }
}

/** One job's action, only while it still matches the filter: the ids it changed (its tree's, for retry and cancel). */
async function actOn(
  core: EngineCore,
  action: BulkActionName,
  id: string,
  request: CheckedBulkRequest,
): Promise<string[]> {
  if (action === 'retry') return core.storage.actions.retrySubtree(id, request.match);
  if (action === 'cancel') return core.storage.actions.cancelSubtree(id, request.match);
  // A fork changes nothing of the job it copies: done once the fork is added.
  if (action === 'fork') return (await forkJob(core, id, { from: request.fork! })) ? [id] : [];
  return (await core.storage.actions.runJobNow(id, request.match)) ? [id] : [];
}

/** Why the statement left a chosen job alone: gone, no longer matching, or in a state the action refuses. */
async function whyLeft(
  core: EngineCore,
  action: BulkActionName,
  request: CheckedBulkRequest,
  id: string,
): Promise<[BulkRefusalReason, string]> {
  const job = await core.storage.jobs.getJob(id);
  if (!job) return ['not-found', `job ${id} was deleted meanwhile`];
  if (request.status === null && !ACTIONABLE[action].includes(job.status)) {
    if (action === 'cancel') return ['not-in-flight', `job ${id} had already finished`];
    if (action === 'run-now') {
      return ['not-waiting', `job ${id} is ${job.status}; only pending or retry-waiting jobs can be run now`];
    }
    return [
      'not-retryable',
      `job ${id} is ${job.status}; only finished or retry-waiting jobs can be retried`,
    ];
  }
  return [
    'changed',
    `job ${id} changed after it was chosen (it is ${job.status} now) and no longer matches the filter`,
  ];
}

function refusalReason(action: BulkActionName, error: unknown): BulkRefusalReason | null {
  if (error instanceof UniqueKeyConflictError) return 'unique-key-conflict';
  if (error instanceof JobNotFoundError) return 'not-found';
  if (action === 'fork' && error instanceof InvalidJobStateError) return 'not-failed';
  if (action === 'fork' && error instanceof InvalidOptionError && error.details.field === 'from.step') {
    return 'no-fork-point';
  }
  if (error instanceof InvalidJobStateError) return 'not-retryable';
  return null;
}

function refuse(outcome: BulkOutcome, id: string, reason: BulkRefusalReason, message: string): void {
  outcome.refused[reason] = (outcome.refused[reason] ?? 0) + 1;
  if (outcome.refusals.length < MAX_LISTED_REFUSALS) outcome.refusals.push({ id, reason, message });
}
