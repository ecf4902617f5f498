import type { EngineCore } from '../engine-core.js';
import { RetentionPausedError } from '../errors.js';
import type { TypedEmitter } from '../events.js';
import type { Logger } from '../log/logger.js';
import type { Clock } from '../model/clock.js';
import type { ArchiveHook } from '../retention/archive.js';
import { BatchPace } from '../retention/batch-pace.js';
import { retentionOf } from '../retention/capability.js';
import type { SweepOutcome, SweepRecord } from '../retention/sweep-types.js';
import type { RetentionCapability, Storage } from '../storage/storage.js';
import { type MaintenanceService, periodicService } from './service.js';
import type { ResolvedSweep } from './sweep-option.js';

/**
 * What a sweep works with, and nothing else: the retention capability, the gate the archive
 * path holds, the archive hook, the cluster-wide turns, and where it reports.
 */
export interface SweepInputs {
  retention: RetentionCapability;
  controls: Storage['controls'];
  turns: Storage['maintenance'];
  archive?: ArchiveHook;
  events: TypedEmitter;
  logger: Logger;
  /** What a sweep's record says it started at. */
  clock: Clock;
  /** How long an audit row is kept, in seconds: older ones go in the retention pass. */
  auditRetainSeconds: number;
}

/** A sweep's inputs from the engine's parts; RetentionUnsupportedError without the capability. */
export function sweepInputs(core: EngineCore, operation: string, logger = core.logger): SweepInputs {
  return {
    retention: retentionOf(core, operation),
    controls: core.storage.controls,
    turns: core.storage.maintenance,
    archive: core.archive,
    events: core.events,
    logger,
    clock: core.clock,
    auditRetainSeconds: core.auditRetainSeconds,
  };
}

/** A sweep's settings: rows per statement, and how long one statement may run. */
export interface SweepSettings {
  batchSize: number;
  /** A statement running longer is cancelled by the database, and the batch is halved. */
  statementTimeoutMs: number;
}

/** How long one deletion statement may run before the database cancels it (and the batch halves). */
export const SWEEP_STATEMENT_TIMEOUT_MS = 30_000;

export interface SweepResult extends SweepOutcome {
  /** Full limiter buckets deleted (the unique-lock sweep's). */
  limiterBuckets?: number;
  batches: number;
  durationMs: number;
}

/** Why a pass stopped before draining: retention's pause (not an error), or an error. */
export type StopReason = { paused?: true; error?: string };

export function stoppedBy(caught: unknown): StopReason {
  if (caught instanceof RetentionPausedError) return { paused: true };
  return { error: caught instanceof Error ? caught.message : String(caught) };
}

/** Delete in batches, paced (see BatchPace), until a short batch; the total deleted. */
export async function drain(
  step: (batchSize: number) => Promise<number>,
  settings: SweepSettings,
): Promise<number> {
  let total = 0;
  const pace = new BatchPace(settings.batchSize);
  for (;;) {
    const { value: n, size } = await pace.run(step);
    total += n;
    if (n < size) return total;
  }
}

/** History row, event and log line of one sweep. */
export async function report(
  inputs: SweepInputs,
  kind: SweepRecord['kind'],
  startedAt: Date,
  result: SweepResult,
): Promise<void> {
  const { events, logger } = inputs;
  const { jobs, signals, logLines, uniqueLocks, batches, durationMs, error, paused } = result;
  try {
    await inputs.retention.recordSweep({
      ...result,
      kind,
      startedAt,
      error: error ?? null,
      paused: paused === true,
    });
  } catch (recordError) {
    logger.warn('could not record the sweep in its history', { kind, error: String(recordError) });
  }
  const fields = {
    jobs,
    signals,
    ...(logLines ? { logLines } : {}),
    ...(result.auditRows ? { auditRows: result.auditRows } : {}),
    uniqueLocks,
    ...(result.limiterBuckets ? { limiterBuckets: result.limiterBuckets } : {}),
    batches,
    durationMs: Math.round(durationMs),
    ...(paused ? { paused } : {}),
    ...(error === undefined ? {} : { error }),
  };
  if (kind === 'retention') {
    events.emit('sweep:finished', result);
    logger.debug('retention sweep finished', fields);
  } else {
    events.emit('unique-lock-sweep:finished', {
      uniqueLocks,
      limiterBuckets: result.limiterBuckets ?? 0,
      durationMs,
      error,
      ...(paused ? { paused } : {}),
    });
    logger.debug('unique-lock sweep finished', fields);
  }
  if (error !== undefined) {
    logger.error(`${kind === 'retention' ? 'retention' : 'unique-lock'} sweep failed; the batch was kept`, {
      error,
    });
  }
}

/** What a sweep leaves in its turn's row: its counts, for the dashboard and the CLI. */
export function turnResult(result: SweepResult) {
  return {
    jobs: result.jobs,
    signals: result.signals,
    uniqueLocks: result.uniqueLocks,
    durationMs: Math.round(result.durationMs),
    error: result.error ?? null,
    paused: result.paused === true,
  };
}

/**
 * A sweep's turn on a worker: run `sweep` when this node wins the interval's turn cluster-wide
 * (advisory lock plus the last-run row, taken a little under the interval so timer drift on
 * the winning node does not skip one), then leave its counts in that row.
 */
export function sweepTurn(
  name: string,
  sweep: (inputs: SweepInputs, settings: SweepSettings) => Promise<SweepResult>,
): (inputs: SweepInputs, options: ResolvedSweep) => Promise<void> {
  return async (inputs, options) => {
    if (!(await inputs.turns.takeTurn(name, options.intervalSeconds * 0.9))) return;
    const settings = { batchSize: options.batchSize, statementTimeoutMs: SWEEP_STATEMENT_TIMEOUT_MS };
    await inputs.turns.recordTurnResult(name, turnResult(await sweep(inputs, settings)));
  };
}

/** A sweep as a worker runs it: its turn every interval, the first 1 to 5 s after start. */
export function sweepService(
  name: MaintenanceService['name'],
  turn: (inputs: SweepInputs, options: ResolvedSweep) => Promise<void>,
  inputs: SweepInputs,
  options: ResolvedSweep,
  onError: (error: unknown) => void,
): MaintenanceService {
  const run = () => turn(inputs, options);
  return periodicService(name, options.intervalSeconds, run, onError, 1 + Math.random() * 4);
}
