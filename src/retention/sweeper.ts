import type { EngineCore } from '../engine-core.js';
import { RetentionPausedError, RetentionUnsupportedError } from '../errors.js';
import { type BatchCursor, FIRST_BATCH, type RetentionCapability } from '../storage/storage.js';
import { archiveDueBatch } from './archive.js';
import { BatchPace } from './batch-pace.js';
import type { SweepBreakdown, SweepOutcome, SweepPreview, SweepRecord } from './sweep-types.js';

export interface SweepRunOptions {
  /** Tops of trees per delete statement (a tree's members go with their top). */
  batchSize: number;
  /** Also delete expired unique locks in this pass (tm.sweep does; workers run them apart). */
  includeUniqueLocks?: boolean;
}

export interface SweepResult extends SweepOutcome {
  batches: number;
  durationMs: number;
}

/** The retention capability, or a typed error naming what needed it. */
export function retentionOf(core: EngineCore, operation: string): RetentionCapability {
  const retention = core.storage.retention;
  if (!retention) throw new RetentionUnsupportedError(operation);
  return retention;
}

/**
 * One full retention pass: due trees in batches (each its own transaction, paced by
 * BatchPace: smaller batches while they are slow) until a batch comes back short, then consumed
 * signals past their window, then (optionally) expired unique locks. A failing batch stops
 * the pass: what earlier batches deleted stays deleted, the failing batch is kept whole,
 * and the error is reported in the result, the event, the log and the sweep history.
 * While retention is paused cluster-wide the pass deletes nothing and says `paused`; a
 * pause placed during a pass stops it before its next batch.
 */
export async function sweepRetention(core: EngineCore, options: SweepRunOptions): Promise<SweepResult> {
  const retention = retentionOf(core, 'sweep');
  const startedAt = new Date();
  const t0 = performance.now();
  const byQueue = new Map<string, SweepBreakdown>();
  let jobs = 0;
  let signals = 0;
  let uniqueLocks = 0;
  let batches = 0;
  let stop: StopReason = {};
  try {
    let cursor: BatchCursor = FIRST_BATCH;
    const pace = new BatchPace(options.batchSize);
    for (;;) {
      batches++;
      const { value: batch, size } = await pace.run((n) =>
        core.archive
          ? archiveDueBatch(core.storage.controls, retention, core.archive, n, cursor)
          : retention.deleteDueBatch(n, cursor),
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
    signals = await drain((n) => retention.deleteConsumedSignals(n), options.batchSize);
    if (options.includeUniqueLocks) {
      uniqueLocks = await drain((n) => retention.deleteExpiredUniqueLocks(n), options.batchSize);
    }
  } catch (caught) {
    stop = stoppedBy(caught);
  }
  if (jobs + signals + uniqueLocks > 0) await reclaim(core, retention);
  const result: SweepResult = {
    jobs,
    signals,
    uniqueLocks,
    byQueue: [...byQueue.values()].sort(
      (a, b) => a.queue.localeCompare(b.queue) || a.status.localeCompare(b.status),
    ),
    batches,
    durationMs: performance.now() - t0,
    ...stop,
  };
  await report(core, retention, 'retention', startedAt, result);
  return result;
}

/** Delete expired unique locks (R8) in batches until a short batch. */
export async function sweepUniqueLocks(core: EngineCore, batchSize: number): Promise<SweepResult> {
  const retention = retentionOf(core, 'unique-lock sweep');
  const startedAt = new Date();
  const t0 = performance.now();
  let uniqueLocks = 0;
  let stop: StopReason = {};
  try {
    uniqueLocks = await drain((n) => retention.deleteExpiredUniqueLocks(n), batchSize);
  } catch (caught) {
    stop = stoppedBy(caught);
  }
  const result: SweepResult = {
    jobs: 0,
    signals: 0,
    uniqueLocks,
    byQueue: [],
    batches: 0,
    durationMs: performance.now() - t0,
    ...stop,
  };
  await report(core, retention, 'unique-locks', startedAt, result);
  return result;
}

/**
 * What a full pass would delete now, per queue and status, deleting nothing. While
 * retention is paused it says what would go once resumed, and `paused`.
 */
export async function previewSweep(core: EngineCore): Promise<SweepPreview> {
  const [preview, control] = await Promise.all([
    retentionOf(core, 'sweep').preview(),
    core.storage.controls.status(),
  ]);
  return {
    dryRun: true,
    jobs: preview.byQueue.reduce((sum, r) => sum + r.count, 0),
    signals: preview.signals,
    uniqueLocks: preview.uniqueLocks,
    byQueue: preview.byQueue,
    ...(control.paused ? { paused: true } : {}),
  };
}

/** Why a pass stopped before draining: retention's pause (not an error), or an error. */
type StopReason = { paused?: true; error?: string };

function stoppedBy(caught: unknown): StopReason {
  if (caught instanceof RetentionPausedError) return { paused: true };
  return { error: caught instanceof Error ? caught.message : String(caught) };
}

/** Space reclaim failing must not turn a successful sweep into a failed one. */
export async function reclaim(core: EngineCore, retention: RetentionCapability): Promise<void> {
  try {
    await retention.reclaimSpace();
  } catch (error) {
    core.logger.warn('could not reclaim space after deleting rows', { error: String(error) });
  }
}

/** History row, event and log line of one sweep. */
async function report(
  core: EngineCore,
  retention: RetentionCapability,
  kind: SweepRecord['kind'],
  startedAt: Date,
  result: SweepResult,
): Promise<void> {
  const { jobs, signals, uniqueLocks, batches, durationMs, error, paused } = result;
  try {
    await retention.recordSweep({
      ...result,
      kind,
      startedAt,
      error: error ?? null,
      paused: paused === true,
    });
  } catch (recordError) {
    core.logger.warn('could not record the sweep in its history', { kind, error: String(recordError) });
  }
  const fields = {
    jobs,
    signals,
    uniqueLocks,
    batches,
    durationMs: Math.round(durationMs),
    ...(paused ? { paused } : {}),
    ...(error === undefined ? {} : { error }),
  };
  if (kind === 'retention') {
    core.events.emit('sweep:finished', result);
    core.logger.debug('retention sweep finished', fields);
  } else {
    core.events.emit('unique-lock-sweep:finished', {
      uniqueLocks,
      durationMs,
      error,
      ...(paused ? { paused } : {}),
    });
    core.logger.debug('unique-lock sweep finished', fields);
  }
  if (error !== undefined) {
    core.logger.error(
      `${kind === 'retention' ? 'retention' : 'unique-lock'} sweep failed; the batch was kept`,
      {
        error,
      },
    );
  }
}

async function drain(step: (batchSize: number) => Promise<number>, batchSize: number): Promise<number> {
  let total = 0;
  const pace = new BatchPace(batchSize);
  for (;;) {
    const { value: n, size } = await pace.run(step);
    total += n;
    if (n < size) return total;
  }
}
