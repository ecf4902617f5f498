import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, QueueNotFoundError } from '../errors.js';
import type { FrozenRetention } from '../model/job.js';
import { freezeRetention, type RetentionPolicy } from '../model/retention-policy.js';
import { checkBatchSize, DEFAULT_BATCH_SIZE } from '../options/batch-size.js';
import { checkBoolean, checkKnownKeys, checkObject, checkString } from '../options/check.js';
import { readOptions } from '../options/read-options.js';
import { notePolicy } from './policy-notes.js';

/** Options of `tm.applyRetention`. */
export interface ApplyRetentionOptions {
  queue: string;
  /** The policy to freeze onto the queue's jobs; default the queue's stored policy (else the engine's). `false` keeps them forever. */
  policy?: RetentionPolicy | false;
  /** Count the jobs whose windows would change; change nothing. */
  dryRun?: boolean;
  /** Jobs per statement, 1..10000 (larger values are clamped). Default 1000. */
  batchSize?: number;
  /** Called after each batch with the number of jobs changed so far. */
  onProgress?: (changedSoFar: number) => void;
}

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
  const options = checkObject(readOptions(input, 'options'), 'options');
  checkKnownKeys(options, '', ['queue', 'policy', 'dryRun', 'batchSize', 'onProgress']);
  const queue = checkString(options.queue, 'queue');
  const policy = options.policy === undefined ? undefined : freezeRetention(options.policy, 'policy');
  const dryRun = options.dryRun === undefined ? false : checkBoolean(options.dryRun, 'dryRun');
  const { batchSize, warning } =
    options.batchSize === undefined
      ? { batchSize: DEFAULT_BATCH_SIZE }
      : checkBatchSize(options.batchSize, 'batchSize');
  const onProgress = options.onProgress as ApplyRetentionOptions['onProgress'];
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new InvalidOptionError('onProgress', 'a function', onProgress);
  }
  const stored = await core.storage.queues.getQueue(queue);
  if (!stored) throw new QueueNotFoundError(queue);
  if (warning) core.once.warn(warning, warning);
  if (options.policy !== undefined) notePolicy(core.once, options.policy, 'applyRetention.policy');
  const retention = policy ?? stored.options.retention ?? core.engineRetention;
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
