import type { EngineCore } from '../engine-core.js';
import type { Logger } from '../log/logger.js';
import { messages } from '../log/messages.js';
import type { ResolvedSweep } from '../worker/worker-options.js';

/**
 * The startup line, once per worker: what retention will delete and when, or one warning
 * that it will not. A fleet of N workers logs it N times, one per node, so every node's
 * log shows the policy in force.
 */
export function announceRetention(core: EngineCore, sweep: ResolvedSweep | false, logger: Logger): void {
  if (!core.storage.hasRetention) {
    logger.warn(messages.retentionUnsupported);
    return;
  }
  if (sweep === false) {
    logger.warn(messages.retentionDisabled, { reason: 'sweep: false on this worker' });
    return;
  }
  if (core.retentionDisabled) {
    // The sweep still runs for queues and jobs that set their own policy; say so.
    logger.warn(messages.retentionDisabled, {
      reason: 'retention: false on the engine',
      stillSwept: 'jobs whose queue or job sets its own retention policy',
      intervalSeconds: sweep.intervalSeconds,
      batchSize: sweep.batchSize,
    });
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
