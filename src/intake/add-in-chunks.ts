import type { EngineCore } from '../engine-core.js';
import { isRecord } from '../model/guards.js';
import type { Queryable } from '../storage/storage.js';
import { announceAdded, checkInputs } from './add-jobs.js';
import { insertJobsAtomically } from './insert-jobs.js';
import type { AddJobResult, JobRequest } from './job-request.js';

/** Jobs per statement when a bulk add is written in chunks. */
export const CHUNK_ROWS = 500;

/**
 * Whether `addJobs` writes these inputs in chunks, checking each chunk while the database
 * writes the one before it. Only on PostgreSQL, where the server works beside this process
 * (PGlite runs in this thread: chunks would only add statements); only outside a caller's
 * transaction; only for batches of two chunks or more; and only for jobs without a
 * deduplication key or lock, whose writes a batch orders as a whole (see insertCompleted), nor
 * dependencies, which a batch locks as a whole (see insertWithDependencies).
 * A field that cannot be read leaves the batch to the one-statement path, which names it.
 */
export function addsInChunks(core: EngineCore, inputs: unknown, options: { tx?: unknown }): boolean {
  if (core.storage.kind !== 'node-postgres' || options?.tx !== undefined) return false;
  if (!Array.isArray(inputs) || inputs.length < 2 * CHUNK_ROWS) return false;
  try {
    return inputs.every(
      (input) =>
        isRecord(input) &&
        input.unique === undefined &&
        input.idempotencyKey === undefined &&
        input.uniqueFor === undefined &&
        input.dependsOn === undefined,
    );
  } catch {
    return false;
  }
}

/**
 * Add the jobs all or nothing, in one transaction of chunks of CHUNK_ROWS: the checks of
 * chunk n+1 (options, data, schemas) run while the server inserts chunk n, so a bulk add
 * costs about the larger of the two rather than their sum. An input refused in a later
 * chunk rolls back the chunks written before it: nothing is written, as on the one-statement
 * path, and the error names `jobs[i]` the same way. `prepare` runs on each chunk's requests
 * before they are written (a typed queue's schema checks).
 */
export async function addInChunks(
  core: EngineCore,
  inputs: unknown[],
  prepare: (requests: JobRequest[]) => Promise<void>,
  ready: () => Promise<void>,
): Promise<AddJobResult[]> {
  const chunkAt = async (start: number) => {
    const requests = checkInputs(core, inputs, start, Math.min(start + CHUNK_ROWS, inputs.length));
    await prepare(requests);
    return requests;
  };
  const first = await chunkAt(0);
  await ready();
  const requests: JobRequest[] = [];
  const results = await core.storage.atomically(async (tx) => {
    const written: AddJobResult[] = [];
    let writing = startWrite(core, first, tx);
    requests.push(...first);
    try {
      for (let start = CHUNK_ROWS; start < inputs.length; start += CHUNK_ROWS) {
        // The previous chunk's statement is on its way to the server: check the next meanwhile.
        await sent();
        const chunk = await chunkAt(start);
        written.push(...(await writing));
        writing = startWrite(core, chunk, tx);
        requests.push(...chunk);
      }
      written.push(...(await writing));
    } catch (error) {
      // Let the statement in flight end before the transaction rolls back.
      await writing.catch(() => {});
      throw error;
    }
    return written;
  });
  announceAdded(core, requests, results);
  return results;
}

/**
 * Start writing a chunk. Its failure is handled at once (and thrown again where it is awaited):
 * it can arrive while the next chunk is being checked, and a rejection nothing handles by then
 * ends a Node process.
 */
function startWrite(core: EngineCore, requests: JobRequest[], tx: Queryable): Promise<AddJobResult[]> {
  const writing = insertJobsAtomically(core, requests, tx);
  writing.catch(() => {});
  return writing;
}

/**
 * Resolves once the statement just started has been handed to the socket: the steps before
 * it are promise continuations, which run before a setImmediate callback; without this the
 * next chunk's synchronous checks would run first and the two would not overlap.
 */
function sent(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
