import type { EngineCore } from '../engine-core.js';
import { InvalidJobStateError, InvalidOptionError, JobNotFoundError } from '../errors.js';
import { addCheckedJobs } from '../intake/add-jobs.js';
import { resolveAddJob } from '../intake/job-request.js';
import { validateRequests } from '../intake/validate-data.js';
import { isObject } from '../model/guards.js';
import type { Job } from '../model/job.js';
import type { CheckpointRow } from '../storage/storage.js';

/** Where a fork starts again: before a recorded step, or at the failure that ended the job. */
export type ForkPoint = { step: string } | { failure: true };

/** Options of `tm.forkJob`. */
export interface ForkJobOptions {
  /**
   * `{ step: name }`: the fork keeps what was recorded before that step and runs it and
   * everything after again. `{ failure: true }` (a failed job): it keeps everything recorded
   * and runs again from the call that failed.
   */
  from: ForkPoint;
  /** The fork's data; the original's when left out. Checked as at `addJob`. */
  data?: unknown;
}

/**
 * What a fork copies: the results a replay answers from (steps, sleeps, signal waits, patch
 * answers). Not copied, so made again by the fork: a child's start (the child belongs to the
 * original's tree; the fork starts its own), callback tokens and their waits (a token belongs to
 * its job), failed-step markers. Neither are dependencies, per-job retention or unique keys:
 * the fork is a new job of its queue.
 */
const COPIED_KINDS: ReadonlySet<string> = new Set(['step', 'sleep', 'wait', 'patch']);

/** Check `from` (the field named in every error); nothing is read. */
export function checkForkPoint(from: unknown, field = 'from'): ForkPoint {
  if (isObject(from) && 'failure' in from) {
    if (from.failure !== true || Object.keys(from).length !== 1) {
      throw new InvalidOptionError(field, '{ failure: true } or { step: name }', from);
    }
    return { failure: true };
  }
  if (isObject(from) && Object.keys(from).length === 1 && typeof from.step === 'string' && from.step !== '') {
    return { step: from.step };
  }
  throw new InvalidOptionError(field, '{ failure: true } or { step: name }', from);
}

/**
 * The checkpoints a fork keeps: for `{ step }`, those recorded before the step (by place, or
 * by time for checkpoints written before places existed); for `{ failure }`, all. An unknown
 * step is refused, naming `from.step` and the steps there are.
 */
export function checkpointsBefore(job: Job, checkpoints: CheckpointRow[], from: ForkPoint): string[] {
  const copied = checkpoints.filter((c) => COPIED_KINDS.has(c.kind));
  if ('failure' in from) {
    if (job.status !== 'failed') {
      throw new InvalidJobStateError(job.id, job.status, 'only a failed job can be forked from its failure');
    }
    return copied.map((c) => c.name);
  }
  const point = checkpoints.find((c) => c.kind === 'step' && c.name === from.step);
  if (point === undefined) {
    const steps = checkpoints.filter((c) => c.kind === 'step').map((c) => c.name);
    const known = steps.length === 0 ? 'none recorded' : `one of ${steps.join(', ')}`;
    throw new InvalidOptionError('from.step', `a step job ${job.id} recorded (${known})`, from.step);
  }
  return copied
    .filter((c) =>
      point.seq !== null && c.seq !== null
        ? c.seq < point.seq
        : c.createdAt.getTime() < point.createdAt.getTime(),
    )
    .map((c) => c.name);
}

/**
 * Make a new job of the same queue that starts from a point of an earlier one, keeping the
 * results recorded before it. The fork is a job of its own (its own tree, its queue's current
 * retention, `forkedFrom` pointing back); the original is left as it is.
 */
export async function forkJob(core: EngineCore, jobId: string, options: ForkJobOptions): Promise<Job> {
  if (!isObject(options)) throw new InvalidOptionError('options', 'an object { from, data? }', options);
  const from = checkForkPoint(options.from);
  const job = await core.storage.jobs.getJob(jobId);
  if (!job) throw new JobNotFoundError(jobId);
  const names = checkpointsBefore(job, await core.storage.workflow.listCheckpoints(jobId), from);
  const request = resolveAddJob({
    queue: job.queue,
    data: 'data' in options ? options.data : job.data,
    priority: job.priority,
    maxAttempts: job.maxAttempts,
    ...(job.key === null ? {} : { key: job.key }),
    ...(job.tier === null ? {} : { tier: job.tier }),
    ...(job.tags.length === 0 ? {} : { tags: [...job.tags] }),
  });
  request.row.forked_from = job.id;
  await validateRequests(core, [request]);
  const forkId = await core.storage.transaction(async (tx) => {
    const [added] = await addCheckedJobs(core, { requests: [request], on: tx });
    const copied = await core.storage.workflow.copyCheckpoints(job.id, added.id, names, tx);
    // The original was deleted or changed since it was read: add no fork missing what it keeps.
    if (copied.length !== names.length) {
      throw new InvalidJobStateError(
        job.id,
        'changed',
        'its checkpoints changed while it was forked; try again',
      );
    }
    return added.id;
  });
  const fork = await core.storage.jobs.getJob(forkId);
  if (!fork) throw new JobNotFoundError(forkId);
  return fork;
}
