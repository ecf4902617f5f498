import type { EngineCore } from '../engine-core.js';
import { QueueNotFoundError } from '../errors.js';
import { ALL_STATUSES } from '../job-status.js';
import type { FrozenRetention } from '../model/job.js';
import type { StoredQueueOptions } from '../model/queue.js';
import { addDue, type QueueOverview, WAITING_STATUSES } from './overview.js';
import { COUNT_CAP, statusCount } from './status-count.js';

/** One queue as its page shows it: its counts, its latency and the options stored for it. */
export interface QueueSummary
  extends Pick<QueueOverview, 'name' | 'paused' | 'counts' | 'ready' | 'scheduled' | 'latencySeconds'> {
  /** The queue's definition as stored by the process that last defined it (`queues.options`). */
  options: Partial<StoredQueueOptions>;
  /** The retention windows its jobs take: the queue's own, or the engine's when it sets none. */
  retention: { windows: FrozenRetention; source: 'queue' | 'engine default' };
}

/**
 * A queue's counts per status (exact up to COUNT_CAP each), ready versus scheduled, latency
 * and stored options: the bounded statements of the queues page for one queue.
 * QueueNotFoundError when no queue of that name is stored.
 */
export async function loadQueueSummary(core: EngineCore, name: string): Promise<QueueSummary> {
  const storage = core.storage;
  const stored = await storage.queues.getQueue(name);
  if (!stored) throw new QueueNotFoundError(name);
  const [counts, due] = await Promise.all([
    storage.reads.countStatusesCapped([name], ALL_STATUSES, COUNT_CAP + 1),
    storage.reads.splitDueCapped([name], WAITING_STATUSES, COUNT_CAP + 1),
  ]);
  const own = stored.options.retention;
  const summary: QueueSummary = {
    name,
    paused: stored.paused,
    counts: Object.fromEntries(counts.map((row) => [row.status, statusCount(row.n, null)])),
    ready: { n: 0, exact: true, kind: 'exact' },
    scheduled: { n: 0, exact: true, kind: 'exact' },
    latencySeconds: null,
    options: stored.options,
    retention:
      own === undefined
        ? { windows: core.engineRetention, source: 'engine default' }
        : { windows: own, source: 'queue' },
  };
  for (const row of due) addDue(summary, row);
  return summary;
}
