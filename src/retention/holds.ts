import type { EngineCore } from '../engine-core.js';
import { HoldNotFoundError, InvalidOptionError, JobNotFoundError } from '../errors.js';
import { processName } from '../log/process-name.js';
import { checkId, checkKnownKeys, checkObject, checkString } from '../options/check.js';
import type { HoldRecord } from '../storage/storage.js';

/** Options of `tm.holdJobs`: jobs by id, a queue, or both. */
export interface HoldJobsOptions {
  /** Jobs to keep, with the trees they belong to (at most 10,000 ids). */
  ids?: string[];
  /** Keep every job of this queue, those in the database now and those added while the hold stands. */
  queue?: string;
  /** Why (an audit, an incident, a legal hold): shown wherever the hold is. */
  reason: string;
}

/** What `tm.holdJobs` resolves to. */
export interface HoldResult {
  holdId: string;
  /** Jobs the hold covers now. */
  jobs: number;
}

export type { HoldRecord };

const MAX_IDS = 10_000;

/**
 * Keep jobs, and the trees they belong to, through every sweep and bulk removal until
 * the hold is released. Placed after the deletions in progress; every later one sees it.
 * An id that names no job refuses the whole hold (JobNotFoundError), writing nothing.
 */
export async function holdJobs(core: EngineCore, input: HoldJobsOptions): Promise<HoldResult> {
  const options = checkObject(input, 'options');
  checkKnownKeys(options, '', ['ids', 'queue', 'reason']);
  const reason = checkString(options.reason, 'reason', { max: 500 });
  let ids: string[] = [];
  if (options.ids !== undefined) {
    if (!Array.isArray(options.ids) || options.ids.length === 0 || options.ids.length > MAX_IDS) {
      throw new InvalidOptionError('ids', `an array of 1 to ${MAX_IDS} job ids`, options.ids);
    }
    ids = [...new Set(options.ids.map((id, i) => checkId(id, `ids[${i}]`)))];
  }
  const queue = options.queue === undefined ? null : checkString(options.queue, 'queue');
  if (ids.length === 0 && queue === null) {
    throw new InvalidOptionError('ids', 'job ids, or a queue, to hold', undefined);
  }
  if (queue !== null) await core.registry.get(queue);
  const placed = await core.storage.controls.placeHold({ ids, queue, reason, by: processName() });
  if ('missing' in placed) throw new JobNotFoundError(placed.missing[0]);
  core.logger.info('retention hold placed', { holdId: placed.holdId, reason, jobs: placed.jobs, queue });
  return placed;
}

/** Release a hold: its jobs are deleted again by their windows. HoldNotFoundError when absent. */
export async function releaseHold(core: EngineCore, holdId: unknown): Promise<void> {
  const id = checkId(holdId, 'holdId', 'a hold id');
  if (!(await core.storage.controls.releaseHold(id))) throw new HoldNotFoundError(id);
  core.logger.info('retention hold released', { holdId: id });
}
