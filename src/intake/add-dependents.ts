import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import type { Queryable } from '../storage/storage.js';
import { insertJobsAtomically } from './insert-jobs.js';
import type { AddJobResult, JobRequest } from './job-request.js';

/** Whether any of the requests waits for other jobs (`dependsOn`). */
export function anyDependent(requests: JobRequest[]): boolean {
  return requests.some((request) => request.dependsOn !== undefined);
}

/**
 * Insert requests some of which depend on other jobs, all or nothing: in one transaction, or
 * behind a savepoint in the caller's. The dependencies are locked first, in id order, so one
 * finishing meanwhile either finished before (and is read finished) or waits for this commit
 * (and then sees the edges and releases the new job): a dependent is never stranded nor
 * started early. An id that names no job refuses the whole call (InvalidOptionError naming
 * the field), with nothing written. A request deduplicated into an earlier job (`unique`,
 * `idempotencyKey`) adds no edges: the earlier job keeps what it had.
 */
export async function insertWithDependencies(
  core: EngineCore,
  requests: JobRequest[],
  on?: Queryable,
): Promise<AddJobResult[]> {
  const named = new Set<string>();
  for (const request of requests) for (const id of request.dependsOn?.ids ?? []) named.add(id);
  return core.storage.atomically(async (tx) => {
    const found = await core.storage.jobs.lockDependencies([...named], tx);
    for (const { dependsOn } of requests) {
      const missing = dependsOn?.ids.find((id) => !found.has(id));
      if (dependsOn && missing !== undefined) {
        throw new InvalidOptionError(
          dependsOn.field,
          `the ids of jobs that exist (job ${missing} does not)`,
          missing,
        );
      }
    }
    const results = await insertJobsAtomically(core, requests, tx);
    const dependents = [];
    for (let i = 0; i < requests.length; i++) {
      const { dependsOn } = requests[i];
      if (dependsOn === undefined || results[i].deduplicated) continue;
      dependents.push({ id: results[i].id, dependsOn: dependsOn.ids, onFailure: dependsOn.onFailure });
    }
    if (dependents.length > 0) await core.storage.jobs.attachDependencies(dependents, tx);
    return results;
  }, on);
}
