import type { EngineCore } from '../../engine-core.js';
import { boolean } from '../../options/fields.js';
import { OptionSet } from '../../options/option-set.js';
import { batchSizeField } from '../../options/shared-fields.js';
import type { SweepOutcome, SweepPreview } from '../../retention/sweep-types.js';
import { SWEEP_STATEMENT_TIMEOUT_MS, sweepInputs } from '../sweeps.js';
import { previewSweep, sweepRetention } from './sweep.js';

/** A checked `tm.sweep(options)` call. */
export interface SweepRequest {
  dryRun: boolean;
  batchSize: number;
  /** Said once when `batchSize` was clamped. */
  warning?: string;
}

/** `tm.sweep`'s options, declared once. */
export const sweepNowOptions = new OptionSet('options', {
  dryRun: boolean({ default: false, description: 'say what a pass would delete now, deleting nothing' }),
  batchSize: batchSizeField('tops of trees per delete statement'),
});

/** Check `tm.sweep`'s options before anything is read. */
export function checkSweepRequest(options: { dryRun?: boolean; batchSize?: number }): SweepRequest {
  const warnings: string[] = [];
  const { dryRun, batchSize } = sweepNowOptions.read(options, '', warnings);
  const [warning] = warnings;
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
  const inputs = sweepInputs(core, 'sweep');
  if (request.dryRun) return previewSweep(inputs);
  const result = await sweepRetention(inputs, {
    batchSize: request.batchSize,
    statementTimeoutMs: SWEEP_STATEMENT_TIMEOUT_MS,
    includeUniqueLocks: true,
  });
  return {
    jobs: result.jobs,
    signals: result.signals,
    ...(result.logLines ? { logLines: result.logLines } : {}),
    ...(result.auditRows ? { auditRows: result.auditRows } : {}),
    uniqueLocks: result.uniqueLocks,
    ...(result.expiredTokens ? { expiredTokens: result.expiredTokens } : {}),
    byQueue: result.byQueue,
    ...(result.paused ? { paused: true } : {}),
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}
