import type { EngineCore } from '../engine-core.js';
import { checkBatchSize, DEFAULT_BATCH_SIZE } from '../options/batch-size.js';
import { checkBoolean, checkKnownKeys, checkObject } from '../options/check.js';
import type { SweepOutcome, SweepPreview } from './sweep-types.js';
import { previewSweep, sweepRetention } from './sweeper.js';

/** A checked `tm.sweep(options)` call. */
export interface SweepRequest {
  dryRun: boolean;
  batchSize: number;
  /** Said once when `batchSize` was clamped. */
  warning?: string;
}

/** Check `tm.sweep`'s options before anything is read. */
export function checkSweepRequest(options: { dryRun?: boolean; batchSize?: number }): SweepRequest {
  const input = checkObject(options, 'options');
  checkKnownKeys(input, '', ['dryRun', 'batchSize']);
  const dryRun = input.dryRun === undefined ? false : checkBoolean(input.dryRun, 'dryRun');
  const { batchSize, warning } =
    input.batchSize === undefined
      ? { batchSize: DEFAULT_BATCH_SIZE }
      : checkBatchSize(input.batchSize, 'batchSize');
  return { dryRun, batchSize, ...(warning === undefined ? {} : { warning }) };
}

/**
 * `tm.sweep()`: one full retention pass now, on this process, whatever the workers'
 * schedule: due trees, consumed signals past their window and expired unique locks. It
 * resolves to `{ jobs, signals, uniqueLocks, byQueue }` deleted, with `error` when a batch
 * failed (a throwing archive hook, say; earlier batches stay deleted) and `paused: true`
 * when retention is paused (nothing deleted). With `dryRun` it deletes nothing and resolves
 * to what a pass would delete now, per queue and status. Throws RetentionUnsupportedError
 * on a storage without the retention capability.
 */
export async function sweepNow(
  core: EngineCore,
  request: SweepRequest,
): Promise<SweepOutcome | SweepPreview> {
  if (request.warning) core.once.warn(request.warning, request.warning);
  if (request.dryRun) return previewSweep(core);
  const result = await sweepRetention(core, { batchSize: request.batchSize, includeUniqueLocks: true });
  return {
    jobs: result.jobs,
    signals: result.signals,
    uniqueLocks: result.uniqueLocks,
    byQueue: result.byQueue,
    ...(result.paused ? { paused: true } : {}),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}
