import type { EngineCore } from '../engine-core.js';
import { HoldNotFoundError, InvalidOptionError, JobNotFoundError } from '../errors.js';
import { processName } from '../log/process-name.js';
import type { AuditEntry } from '../model/audit.js';
import { checkId } from '../options/check.js';
import { text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { AUDIT_FIELDS, idsField } from '../options/shared-fields.js';
import type { HoldRecord } from '../storage/storage.js';

const MAX_IDS = 10_000;

/** `tm.holdJobs`'s options, declared once: jobs by id, a queue, or both, and why. */
export const holdOptions = new OptionSet(
  'options',
  {
    ids: idsField(MAX_IDS, 'jobs to keep, with the trees they belong to'),
    queue: text(200, {
      description:
        'keep every job of this queue, those in the database now and those added while the hold stands',
    }),
    reason: text(500, {
      description: 'why (an audit, an incident, a legal hold): shown wherever the hold is',
    }),
    ...AUDIT_FIELDS,
  },
  ['reason'],
);

/** Options of `tm.holdJobs`: jobs by id, a queue, or both. */
export type HoldJobsOptions = OptionsOf<typeof holdOptions.properties, 'reason'>;

/** What `tm.holdJobs` resolves to. */
export interface HoldResult {
  holdId: string;
  /** Jobs the hold covers now. */
  jobs: number;
}

export type { HoldRecord };

/**
 * Keep jobs, and the trees they belong to, through every sweep and bulk removal until
 * the hold is released. Placed after the deletions in progress; every later one sees it.
 * An id that names no job refuses the whole hold (JobNotFoundError), writing nothing.
 */
export async function holdJobs(
  core: EngineCore,
  input: HoldJobsOptions,
  audit?: AuditEntry,
): Promise<HoldResult> {
  const options = holdOptions.read(input);
  const { reason } = options;
  const ids = options.ids ?? [];
  const queue = options.queue ?? null;
  if (ids.length === 0 && queue === null) {
    throw new InvalidOptionError('ids', 'job ids, or a queue, to hold', undefined);
  }
  if (queue !== null) await core.registry.get(queue);
  const placed = await core.storage.controls.placeHold({ ids, queue, reason, by: processName() }, audit);
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
