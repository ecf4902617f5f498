import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { notePolicy } from '../retention/policy-notes.js';
import type { Queryable } from '../storage/storage.js';
import { type CallerTransaction, wrapCallerTransaction } from '../storage/storage.js';
import { insertJobsAtomically } from './add-jobs.js';
import { type AddJobInput, type AddJobResult, type ResolvedAdd, resolveAddJob } from './job-options.js';

/** Options of `tm.addJob` and `tm.addJobs`. */
export interface AddJobsOptions {
  /** A `pg` client inside BEGIN, or a PGlite transaction: the jobs are written in it. */
  tx?: CallerTransaction;
}

/** A checked `tm.addJobs(inputs, { tx })` call. */
export interface AddRequest {
  adds: ResolvedAdd[];
  /** The caller's transaction, when the jobs go in through it. */
  on: Queryable | undefined;
}

/** Check every input (each error names `jobs[i]`) and the caller's transaction; nothing is written. */
export function checkAddRequest<Data>(
  core: EngineCore,
  inputs: AddJobInput<Data>[],
  options: AddJobsOptions,
): AddRequest {
  if (!Array.isArray(inputs)) throw new InvalidOptionError('jobs', 'an array of jobs', inputs);
  const adds = inputs.map((input, i) => resolveAddJob(input, inputs.length === 1 ? '' : `jobs[${i}]`));
  for (let i = 0; i < adds.length; i++) {
    if (adds[i].jobRetention) notePolicy(core.once, inputs[i].retention, `queue ${adds[i].queue}, job`);
  }
  return { adds, on: options?.tx === undefined ? undefined : wrapCallerTransaction(options.tx) };
}

/** Insert the jobs all or nothing, then say `job:added` once per queue for those not deduplicated. */
export async function addCheckedJobs(core: EngineCore, { adds, on }: AddRequest): Promise<AddJobResult[]> {
  if (adds.length === 0) return [];
  const results = await insertJobsAtomically(core, adds, on);
  const perQueue = new Map<string, number>();
  results.forEach((r, i) => {
    if (!r.deduplicated) perQueue.set(adds[i].queue, (perQueue.get(adds[i].queue) ?? 0) + 1);
  });
  for (const [queue, count] of perQueue) core.events.emit('job:added', { queue, count });
  return results;
}
