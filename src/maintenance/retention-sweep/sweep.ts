import { archiveDueBatch } from '../../retention/archive.js';
import { BatchPace } from '../../retention/batch-pace.js';
import { reclaim } from '../../retention/capability.js';
import type { SweepBreakdown, SweepPreview } from '../../retention/sweep-types.js';
import { type BatchCursor, FIRST_BATCH } from '../../storage/storage.js';
import {
  drain,
  report,
  type StopReason,
  type SweepInputs,
  type SweepResult,
  type SweepSettings,
  stoppedBy,
} from '../sweeps.js';

export interface SweepRunOptions extends SweepSettings {
  /** Also delete expired unique locks in this pass (tm.sweep does; workers run them apart). */
  includeUniqueLocks?: boolean;
}

/**
 * One full retention pass: due trees in batches (each its own transaction, paced by
 * BatchPace: smaller batches while they are slow, and after a statement the database
 * cancelled for running too long) until a batch comes back short, then consumed signals
 * and log lines past their own windows, audit rows past the audit's window, then (optionally) expired unique locks, full limiter buckets and expired callback tokens. A failing batch stops the
 * pass: what earlier batches deleted stays deleted, the failing batch is kept whole, and
 * the error is reported in the result, the event, the log and the sweep history. While
 * retention is paused cluster-wide the pass deletes nothing and says `paused`; a pause
 * placed during a pass stops it before its next batch.
 */
export async function sweepRetention(inputs: SweepInputs, options: SweepRunOptions): Promise<SweepResult> {
  const { retention, archive, controls } = inputs;
  const timeout = options.statementTimeoutMs;
  const startedAt = new Date(inputs.clock.now());
  const t0 = performance.now();
  const byQueue = new Map<string, SweepBreakdown>();
  let jobs = 0;
  let signals = 0;
  let logLines = 0;
  let auditRows = 0;
  let uniqueLocks = 0;
  let batches = 0;
  let limiterBuckets = 0;
  let expiredTokens = 0;
  let stop: StopReason = {};
  try {
    let cursor: BatchCursor = FIRST_BATCH;
    const pace = new BatchPace(options.batchSize);
    for (;;) {
      batches++;
      const { value: batch, size } = await pace.run((n) =>
        archive
          ? archiveDueBatch(controls, retention, archive, n, cursor)
          : retention.deleteDueBatch(n, cursor, timeout),
      );
      for (const row of batch.deleted) {
        const key = `${row.queue}\u0000${row.status}`;
        const entry = byQueue.get(key) ?? { queue: row.queue, status: row.status, count: 0 };
        entry.count += row.count;
        byQueue.set(key, entry);
        jobs += row.count;
      }
      if (batch.scanned < size) break;
      cursor = batch.next;
    }
    signals = await drain((n) => retention.deleteConsumedSignals(n, timeout), options);
    logLines = await drain((n) => retention.deleteDueLogLines(n, timeout), options);
    const retain = inputs.auditRetainSeconds;
    auditRows = await drain((n) => retention.deleteExpiredAudit(n, retain, timeout), options);
    if (options.includeUniqueLocks) {
      uniqueLocks = await drain((n) => retention.deleteExpiredUniqueLocks(n, timeout), options);
      limiterBuckets = await drain((n) => retention.deleteFullBuckets(n, timeout), options);
      expiredTokens = await drain((n) => retention.deleteExpiredTokens(n, timeout), options);
    }
  } catch (caught) {
    stop = stoppedBy(caught);
  }
  if (jobs + signals + logLines + uniqueLocks > 0) await reclaim(retention, inputs.logger);
  const result: SweepResult = {
    jobs,
    signals,
    ...(logLines > 0 ? { logLines } : {}),
    ...(auditRows > 0 ? { auditRows } : {}),
    uniqueLocks,
    limiterBuckets,
    ...(expiredTokens > 0 ? { expiredTokens } : {}),
    byQueue: [...byQueue.values()].sort(
      (a, b) => a.queue.localeCompare(b.queue) || a.status.localeCompare(b.status),
    ),
    batches,
    durationMs: performance.now() - t0,
    ...stop,
  };
  await report(inputs, 'retention', startedAt, result);
  return result;
}

/**
 * What a full pass would delete now, per queue and status, deleting nothing. While
 * retention is paused it says what would go once resumed, and `paused`.
 */
export async function previewSweep(inputs: SweepInputs): Promise<SweepPreview> {
  const [preview, control] = await Promise.all([inputs.retention.preview(), inputs.controls.status()]);
  return {
    dryRun: true,
    jobs: preview.byQueue.reduce((sum, r) => sum + r.count, 0),
    signals: preview.signals,
    ...(preview.logLines > 0 ? { logLines: preview.logLines } : {}),
    uniqueLocks: preview.uniqueLocks,
    byQueue: preview.byQueue,
    ...(control.paused ? { paused: true } : {}),
  };
}
