import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError } from '../errors.js';
import type { FrozenRetention } from '../model/job.js';
import { boolean, text } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { AUDIT_FIELDS, batchSizeField, functionField, retentionField } from '../options/shared-fields.js';
import { notePolicy } from './policy-notes.js';

/** `tm.applyRetention`'s options, declared once. */
export const applyRetentionOptions = new OptionSet(
  'options',
  {
    queue: text(200, { description: 'the queue whose stored jobs get the windows' }),
    policy: retentionField({
      description: "the policy to freeze onto the queue's jobs; `false` keeps them forever",
      docDefault: "the queue's stored policy, else the engine's",
    }),
    dryRun: boolean({
      default: false,
      description: 'count the jobs whose windows would change; change nothing',
    }),
    batchSize: batchSizeField('jobs per statement'),
    onProgress: functionField<(changedSoFar: number) => void>({
      expected: 'a function',
      docType: '`(changedSoFar: number) => void`',
      description: 'called after each batch with the number of jobs changed so far',
    }),
    ...AUDIT_FIELDS,
  },
  ['queue'],
);

/** Options of `tm.applyRetention`. */
export type ApplyRetentionOptions = OptionsOf<typeof applyRetentionOptions.properties, 'queue'>;

/** What `tm.applyRetention` resolves to. */
export interface ApplyRetentionResult {
  /** Jobs whose windows changed (with `dryRun`, would change). */
  jobs: number;
  /** The windows now frozen onto the queue's jobs. */
  retention: FrozenRetention;
  dryRun: boolean;
}

/**
 * Apply a policy to a queue's history: re-freeze the windows of the jobs already in the
 * database. Finished jobs get their purge time computed again from `finished_at` (so a
 * tighter policy can make them due at once, and a wider one keeps them longer); jobs in
 * flight carry the new windows when they finish. Bounded batches, each its own statement,
 * walking the queue by id; running it again changes nothing more.
 */
export async function applyRetention(
  core: EngineCore,
  input: ApplyRetentionOptions,
): Promise<ApplyRetentionResult> {
  const warnings: string[] = [];
  const { queue, policy, dryRun, batchSize, onProgress } = applyRetentionOptions.read(input, '', warnings);
  const stored = await core.storage.queues.getQueue(queue);
  if (!stored) throw new QueueNotFoundError(queue);
  for (const warning of warnings) core.once.warn(warning, warning);
  if (policy !== undefined) notePolicy(core.once, policy.policy, 'applyRetention.policy');
  const retention = policy?.windows ?? stored.options.retention ?? core.engineRetention;
  if (dryRun) return { jobs: await core.storage.controls.countApply(queue, retention), retention, dryRun };
  let jobs = 0;
  let after = '0';
  for (;;) {
    const batch = await core.storage.controls.applyBatch(queue, retention, after, batchSize);
    jobs += batch.changed;
    onProgress?.(jobs);
    if (batch.scanned < batchSize || batch.lastId === null) break;
    after = batch.lastId;
  }
  core.logger.info("retention windows applied to a queue's history", { queue, jobs, retention });
  return { jobs, retention, dryRun };
}
