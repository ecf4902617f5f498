import type { EngineCore } from '../engine-core.js';
import { ALL_STATUSES } from '../job-status.js';
import {
  cappedStatusCounts,
  type Estimates,
  jobEstimates,
  throughputLastHour,
} from '../storage/sql/admin.js';

/** Counts at or above this are not counted exactly; they come from the planner's statistics. */
export const COUNT_CAP = 1_000;
/** The throughput chart reads at most this many recently finished jobs. */
const THROUGHPUT_ROWS = 500_000;

/** A cell of the overview: exact below the cap, else an estimate (never below the cap). */
export interface StatusCount {
  n: number;
  exact: boolean;
}

export interface QueueOverview {
  name: string;
  paused: boolean;
  counts: Partial<Record<string, StatusCount>>;
  finishedLastHour: number;
  failedLastHour: number;
}

export interface Overview {
  queues: QueueOverview[];
  /** Finished per minute, index 0 = 59 minutes ago … 59 = this minute. */
  perMinute: { completed: number; failed: number; other: number }[];
  /** pg_class.reltuples of the jobs table (null before the first ANALYZE). */
  estimatedJobs: number | null;
}

/** Everything the queues page shows, in four bounded statements. */
export async function loadOverview(core: EngineCore): Promise<Overview> {
  const storage = core.storage;
  const queueRows = await storage.listQueues();
  const [counts, [estimates], recent] = await Promise.all([
    storage.run(cappedStatusCounts, {
      queues: queueRows.map((q) => q.name),
      statuses: [...ALL_STATUSES],
      cap: COUNT_CAP + 1,
    }),
    storage.run(jobEstimates, { schema: storage.schema }),
    storage.run(throughputLastHour, { max_rows: THROUGHPUT_ROWS }),
  ]);
  const estimate = estimator(estimates);
  const queues = new Map<string, QueueOverview>(
    queueRows.map((q) => [
      q.name,
      { name: q.name, paused: q.paused, counts: {}, finishedLastHour: 0, failedLastHour: 0 },
    ]),
  );
  for (const row of counts) {
    const queue = queues.get(row.queue);
    if (!queue) continue;
    const n = Number(row.n);
    queue.counts[row.status] =
      n > COUNT_CAP
        ? { n: Math.max(estimate(row.queue, row.status) ?? COUNT_CAP, COUNT_CAP), exact: false }
        : { n, exact: true };
  }
  const perMinute = Array.from({ length: 60 }, () => ({ completed: 0, failed: 0, other: 0 }));
  for (const row of recent) {
    const n = Number(row.n);
    const queue = queues.get(row.queue);
    if (queue) {
      queue.finishedLastHour += n;
      if (row.status === 'failed') queue.failedLastHour += n;
    }
    const slot = perMinute[59 - Math.min(Math.max(Number(row.minute_ago), 0), 59)];
    if (row.status === 'completed') slot.completed += n;
    else if (row.status === 'failed') slot.failed += n;
    else slot.other += n;
  }
  const reltuples = estimates?.reltuples ?? null;
  return {
    queues: [...queues.values()],
    perMinute,
    estimatedJobs: reltuples !== null && reltuples >= 0 ? reltuples : null,
  };
}

/**
 * reltuples × share of the status × share of the queue, from the most-common-value lists
 * of the last ANALYZE (assumes the two are independent; good enough to say "about 1.2M").
 */
function estimator(stats: Estimates | undefined): (queue: string, status: string) => number | null {
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
