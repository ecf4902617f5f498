import type { EngineCore } from '../../engine-core.js';
import type { Logger } from '../../log/logger.js';
import { messages } from '../../log/messages.js';
import type { FrozenRetention } from '../../model/job.js';
import { WINDOW_KEYS } from '../../model/job.js';
import type { StoredQueue } from '../../storage/storage.js';
import type { ResolvedSweep } from '../sweep-option.js';

/** Queues named in the startup line at most; more are counted. */
const QUEUES_SHOWN = 20;
/** Jobs with a deletion window are counted up to this many for the `retention: false` line. */
const WINDOW_COUNT_CAP = 1_000_000;

/**
 * The startup line, once per worker: what retention will delete and when, or one warning
 * that it will not, or that the cluster-wide pause stops it. A fleet of N workers logs it
 * N times, one per node, so every node's log shows the policy in force. Read from the
 * database: the pause switch, and the queues whose stored policy differs from the engine's.
 */
export async function announceRetention(
  core: EngineCore,
  sweep: ResolvedSweep | false,
  logger: Logger,
): Promise<void> {
  if (!core.storage.hasRetention) {
    logger.warn(messages.retentionUnsupported);
    return;
  }
  // One after the other on the pool's open connection: side by side, the second opened a
  // connection of its own, the longest step of a worker's start.
  const pause = await core.storage.controls.status();
  const queues = await core.storage.queues.listQueues();
  const ownPolicies = queuesWithOwnPolicy(queues, core.engineRetention);
  if (pause.paused) {
    logger.warn(messages.retentionPaused, {
      reason: pause.reason,
      since: pause.since?.toISOString() ?? null,
      pausedBy: pause.pausedBy,
      ...ownPolicies,
    });
    return;
  }
  if (sweep === false) {
    logger.warn(messages.retentionDisabled, {
      reason: 'sweep: false on this worker',
      hint: messages.retentionSweepOffHint,
    });
    return;
  }
  if (core.retentionDisabled) {
    const withWindow = await core.storage.controls.countJobsWithWindow(WINDOW_COUNT_CAP + 1);
    logger.warn(messages.retentionKeptByDefault, {
      finishedJobsWithWindow: withWindow > WINDOW_COUNT_CAP ? `${WINDOW_COUNT_CAP}+` : withWindow,
      ...ownPolicies,
      intervalSeconds: sweep.intervalSeconds,
      batchSize: sweep.batchSize,
      hint: messages.retentionStopAllHint,
    });
    return;
  }
  logger.info(messages.retentionEnabled, {
    ...windowFields(core.engineRetention),
    intervalSeconds: sweep.intervalSeconds,
    batchSize: sweep.batchSize,
    ...ownPolicies,
    disableHint: messages.retentionDisableHint,
  });
}

function windowFields(w: FrozenRetention) {
  return {
    completedAfterSeconds: w.completed ?? null,
    failedAfterSeconds: w.failed ?? null,
    cancelledAfterSeconds: w.cancelled ?? null,
    expiredAfterSeconds: w.expired ?? null,
    consumedSignalsAfterSeconds: w.consumedSignals ?? null,
    // Only when set: lines without a window of their own simply go with their job.
    ...(w.logsAfterSeconds ? { logsAfterSeconds: w.logsAfterSeconds } : {}),
  };
}

/**
 * `{ queuesWithOwnPolicy: { name: windows } }` for the stored queues whose policy differs
 * from the engine default (a window shown as null is kept forever); nothing when none does.
 */
function queuesWithOwnPolicy(queues: StoredQueue[], engine: FrozenRetention): Record<string, unknown> {
  const own = queues.flatMap((q) => {
    const stored = q.options.retention;
    return stored !== undefined && !sameWindows(stored, engine) ? [{ name: q.name, windows: stored }] : [];
  });
  if (own.length === 0) return {};
  const shown: Record<string, unknown> = {};
  for (const q of own.slice(0, QUEUES_SHOWN)) {
    const w = q.windows;
    shown[q.name] = {
      completed: w.completed ?? null,
      failed: w.failed ?? null,
      cancelled: w.cancelled ?? null,
      expired: w.expired ?? null,
      consumedSignals: w.consumedSignals ?? null,
      ...(w.logsAfterSeconds ? { logsAfterSeconds: w.logsAfterSeconds } : {}),
    };
  }
  return {
    queuesWithOwnPolicy: shown,
    ...(own.length > QUEUES_SHOWN ? { moreQueuesWithOwnPolicy: own.length - QUEUES_SHOWN } : {}),
  };
}

function sameWindows(a: FrozenRetention, b: FrozenRetention): boolean {
  return WINDOW_KEYS.every((key) => (a[key] ?? null) === (b[key] ?? null));
}
