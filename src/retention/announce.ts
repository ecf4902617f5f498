import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { messages } from '../log/messages.js';
import type { ResolvedSweep } from '../worker/worker-options.js';

/**
 * The startup line, once per worker: what retention will delete and when, or a warning
 * that it will not. A fleet of N workers logs it N times, one per node.
 */
export function announceRetention(core: EngineCore, sweep: ResolvedSweep | false, logger: Logger): void {
  if (!core.storage.hasRetention) {
    logger.warn(messages.retentionUnsupported);
    return;
  }
  if (sweep === false || core.retentionDisabled) {
    logger.warn(messages.retentionDisabled);
    return;
  }
  const w = core.engineRetention;
  logger.info(messages.retentionEnabled, {
    completedAfterSeconds: w.completed ?? null,
    failedAfterSeconds: w.failed ?? null,
    cancelledAfterSeconds: w.cancelled ?? null,
    expiredAfterSeconds: w.expired ?? null,
    consumedSignalsAfterSeconds: w.consumedSignals ?? null,
    intervalSeconds: sweep.intervalSeconds,
    batchSize: sweep.batchSize,
    disableHint: messages.retentionDisableHint,
  });
}
