import type { EngineCore } from '../engine-core.js';
import { ALL_STATUSES } from '../job-status.js';
import type { DueSplitRow, JobEstimatesRow } from '../storage/storage.js';
import { COUNT_CAP, type StatusCount, statusCount } from './status-count.js';

/** The throughput chart reads at most this many recently finished jobs. */
const THROUGHPUT_ROWS = 500_000;

export interface QueueOverview {
  name: string;
  paused: boolean;
  counts: Partial<Record<string, StatusCount>>;
  finishedLastHour: number;
  failedLastHour: number;
  /**
   * Pending and retry jobs due now (run_at at or before the database's now). `atLeast` when a
   * status holds more than COUNT_CAP jobs: the split reads its oldest COUNT_CAP + 1 only, and
   * `n` is what it found there.
   */
  ready: StatusCount;
  /** Pending and retry jobs due later (a delay, a schedule, a retry's backoff); as `ready`. */
  scheduled: StatusCount;
  /**
   * The queue's latency: seconds since the oldest ready job became due (its run_at), by the
   * database's clock; null when no job is ready.
   */
  latencySeconds: number | null;
}

/** The statuses a job waits in to be claimed, split into ready and scheduled. */
export const WAITING_STATUSES = ['pending', 'retry'] as const;

export interface Overview {
  queues: QueueOverview[];
  /** Finished per minute, index 0 = 59 minutes ago … 59 = this minute. */
  perMinute: { completed: number; failed: number; other: number }[];
  /**
   * pg_class.reltuples of the jobs table; null before the first ANALYZE, and while it is
   * below the jobs the bounded counts found.
   */
  estimatedJobs: number | null;
}

/**
 * Everything the queues page and `tidemark stats` show, in five bounded statements. Each
 * (queue, status) cell is exact up to COUNT_CAP; above, see `statusCount`.
 */
export async function loadOverview(core: EngineCore): Promise<Overview> {
  const storage = core.storage;
  const queueRows = await storage.queues.listQueues();
  const names = queueRows.map((q) => q.name);
  const [counts, due, estimates, recent] = await Promise.all([
    storage.reads.countStatusesCapped(names, ALL_STATUSES, COUNT_CAP + 1),
    storage.reads.splitDueCapped(names, WAITING_STATUSES, COUNT_CAP + 1),
    storage.reads.estimateJobs(),
    storage.reads.finishedLastHour(THROUGHPUT_ROWS),
  ]);
  const estimate = estimator(estimates);
  const queues = new Map<string, QueueOverview>(
    queueRows.map((q) => [
      q.name,
      {
        name: q.name,
        paused: q.paused,
        counts: {},
        finishedLastHour: 0,
        failedLastHour: 0,
        ready: { n: 0, exact: true, kind: 'exact' },
        scheduled: { n: 0, exact: true, kind: 'exact' },
        latencySeconds: null,
      },
    ]),
  );
  for (const row of due) {
    const queue = queues.get(row.queue);
    if (queue) addDue(queue, row);
  }
  let counted = 0;
  for (const row of counts) {
    const queue = queues.get(row.queue);
    if (!queue) continue;
    const { n } = row;
    counted += n;
    queue.counts[row.status] = statusCount(n, n > COUNT_CAP ? estimate(row.queue, row.status) : null);
  }
  const perMinute = Array.from({ length: 60 }, () => ({ completed: 0, failed: 0, other: 0 }));
  for (const row of recent) {
    const { n } = row;
    const queue = queues.get(row.queue);
    if (queue) {
      queue.finishedLastHour += n;
      if (row.status === 'failed') queue.failedLastHour += n;
    }
    const slot = perMinute[59 - Math.min(Math.max(row.minuteAgo, 0), 59)];
    if (row.status === 'completed') slot.completed += n;
    else if (row.status === 'failed') slot.failed += n;
    else slot.other += n;
  }
  const reltuples = estimates?.reltuples ?? null;
  return {
    queues: [...queues.values()],
    perMinute,
    // Statistics older than the rows just counted would claim fewer jobs than are known to exist.
    estimatedJobs: reltuples !== null && reltuples >= counted && reltuples > 0 ? reltuples : null,
  };
}

/** One (queue, status) cell of the ready/scheduled split added to its queue's figures. */
export function addDue(
  queue: Pick<QueueOverview, 'ready' | 'scheduled' | 'latencySeconds'>,
  row: DueSplitRow,
): void {
  const exact = row.seen <= COUNT_CAP;
  const add = (count: StatusCount, n: number): StatusCount => {
    const all = exact && count.exact;
    return { n: count.n + n, exact: all, kind: all ? 'exact' : 'atLeast' };
  };
  queue.ready = add(queue.ready, row.ready);
  queue.scheduled = add(queue.scheduled, row.seen - row.ready);
  const age = row.oldest_ready_seconds;
  if (age !== null) queue.latencySeconds = Math.max(queue.latencySeconds ?? 0, Math.max(age, 0));
}

/**
 * reltuples × share of the status × share of the queue, from the most-common-value lists
 * of the last ANALYZE (assumes the two are independent; good enough to say "about 1.2M").
 */
function estimator(stats: JobEstimatesRow | null): (queue: string, status: string) => number | null {
  return (queue, status) => {
    if (!stats || stats.reltuples === null || stats.reltuples <= 0) return null;
    const share = (vals: string[] | null, freqs: number[] | null, value: string) => {
      const i = vals?.indexOf(value) ?? -1;
      return i >= 0 && freqs ? Number(freqs[i]) : null;
    };
    const statusShare = share(stats.status_vals, stats.status_freqs, status);
    const queueShare = share(stats.queue_vals, stats.queue_freqs, queue);
    if (statusShare === null) return null;
    return Math.round(stats.reltuples * statusShare * (queueShare ?? 1));
  };
}
