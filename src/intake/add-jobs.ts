import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { notePolicy } from '../retention/policy-notes.js';
import { type CallerTransaction, type Queryable, wrapCallerTransaction } from '../storage/storage.js';
import { insertJobsAtomically } from './insert-jobs.js';
import { type AddJobInput, type AddJobResult, type JobRequest, resolveAddJob } from './job-request.js';

/** Options of `tm.addJob` and `tm.addJobs`. */
export interface AddJobsOptions {
  /** A `pg` client inside BEGIN, or a PGlite transaction: the jobs are written in it. */
  tx?: CallerTransaction;
}

/** A checked `tm.addJobs(inputs, { tx })` call. */
export interface AddRequest {
  requests: JobRequest[];
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
  const requests = inputs.map((input, i) => resolveAddJob(input, inputs.length === 1 ? '' : `jobs[${i}]`));
  for (const { row, policy } of requests) {
    if (policy !== undefined) notePolicy(core.once, policy, `queue ${row.queue}, job`);
  }
  return { requests, on: options?.tx === undefined ? undefined : wrapCallerTransaction(options.tx) };
}

/** Insert the jobs all or nothing, then say `job:added` once per queue for those not deduplicated. */
export async function addCheckedJobs(
  core: EngineCore,
  { requests, on }: AddRequest,
): Promise<AddJobResult[]> {
  if (requests.length === 0) return [];
  const results = await insertJobsAtomically(core, requests, on);
  const perQueue = new Map<string, number>();
  results.forEach((r, i) => {
    const { queue } = requests[i].row;
    if (!r.deduplicated) perQueue.set(queue, (perQueue.get(queue) ?? 0) + 1);
  });
  for (const [queue, count] of perQueue) core.events.emit('job:added', { queue, count });
  return results;
}
