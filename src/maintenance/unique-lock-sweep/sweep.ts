import {
  drain,
  report,
  type StopReason,
  type SweepInputs,
  type SweepResult,
  type SweepSettings,
  stoppedBy,
} from '../sweeps.js';

/**
 * Delete expired unique locks (R8) in batches until a short batch, then full limiter buckets
 * (a full bucket is the same as none: nothing a job waits on goes with it), then callback
 * tokens past their expiry that were never completed or cancelled.
 */
export async function sweepUniqueLocks(inputs: SweepInputs, settings: SweepSettings): Promise<SweepResult> {
  const startedAt = new Date(inputs.clock.now());
  const t0 = performance.now();
  let uniqueLocks = 0;
  let limiterBuckets = 0;
  let expiredTokens = 0;
  let stop: StopReason = {};
  try {
    uniqueLocks = await drain(
      (n) => inputs.retention.deleteExpiredUniqueLocks(n, settings.statementTimeoutMs),
      settings,
    );
    limiterBuckets = await drain(
      (n) => inputs.retention.deleteFullBuckets(n, settings.statementTimeoutMs),
      settings,
    );
    expiredTokens = await drain(
      (n) => inputs.retention.deleteExpiredTokens(n, settings.statementTimeoutMs),
      settings,
    );
  } catch (caught) {
    stop = stoppedBy(caught);
  }
  const result: SweepResult = {
    jobs: 0,
    signals: 0,
    uniqueLocks,
    limiterBuckets,
    ...(expiredTokens > 0 ? { expiredTokens } : {}),
    byQueue: [],
    batches: 0,
    durationMs: performance.now() - t0,
    ...stop,
  };
  await report(inputs, 'unique-locks', startedAt, result);
  return result;
}
