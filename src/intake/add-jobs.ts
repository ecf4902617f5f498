import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { notePolicy } from '../retention/policy-notes.js';
import { type CallerTransaction, type Queryable, wrapCallerTransaction } from '../storage/storage.js';
import { anyDependent, insertWithDependencies } from './add-dependents.js';
import { insertJobsAtomically } from './insert-jobs.js';
import { type AddJobInput, type AddJobResult, type JobRequest, resolveAddJob } from './job-request.js';

/** Options of `tm.addJob` and `tm.addJobs`. */
export interface AddJobsOptions {
  /**
   * Your transaction: a `pg` client inside BEGIN, a PGlite transaction, or an adapter's
   * (`fromKysely(trx)` from `tidemark/kysely`, ...). The jobs are written in it.
   */
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
  return {
    requests: checkInputs(core, inputs, 0, inputs.length),
    on: options?.tx === undefined ? undefined : wrapCallerTransaction(options.tx),
  };
}

/** Check inputs[start..end) (each error names `jobs[i]`, or nothing for a single job). */
export function checkInputs(core: EngineCore, inputs: unknown[], start: number, end: number): JobRequest[] {
  const requests = new Array<JobRequest>(end - start);
  for (let i = start; i < end; i++) {
    const request = resolveAddJob(inputs[i], inputs.length === 1 ? '' : `jobs[${i}]`);
    if (request.policy !== undefined)
      notePolicy(core.once, request.policy, `queue ${request.row.queue}, job`);
    requests[i - start] = request;
  }
  return requests;
}

/** Insert the jobs all or nothing, then say `job:added` once per queue for those not deduplicated. */
export async function addCheckedJobs(
  core: EngineCore,
  { requests, on }: AddRequest,
): Promise<AddJobResult[]> {
  if (requests.length === 0) return [];
  const results = anyDependent(requests)
    ? await insertWithDependencies(core, requests, on)
    : await insertJobsAtomically(core, requests, on);
  announceAdded(core, requests, results);
  return results;
}

/** Say `job:added` once per queue, with the ids of the jobs that were not deduplicated. */
export function announceAdded(core: EngineCore, requests: JobRequest[], results: AddJobResult[]): void {
  const perQueue = new Map<string, string[]>();
  for (let i = 0; i < results.length; i++) {
    if (results[i].deduplicated) continue;
    const { queue } = requests[i].row;
    const ids = perQueue.get(queue);
    if (ids === undefined) perQueue.set(queue, [results[i].id]);
    else ids.push(results[i].id);
  }
  for (const [queue, ids] of perQueue) core.events.emit('job:added', { queue, count: ids.length, ids });
}
