import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, QueueNotFoundError } from '../errors.js';
import { isOneOf, keysOf } from '../model/guards.js';

/** The windows the queue page draws: how long, cut into how many buckets. */
export const CHART_WINDOWS = {
  '1h': { seconds: 3_600, buckets: 60, label: 'the last hour', bucketLabel: 'minute' },
  '24h': { seconds: 86_400, buckets: 96, label: 'the last 24 hours', bucketLabel: '15 minutes' },
  '7d': { seconds: 604_800, buckets: 84, label: 'the last 7 days', bucketLabel: '2 hours' },
} as const;

/** `1h`, `24h` or `7d`. */
export type ChartWindow = keyof typeof CHART_WINDOWS;

/** The windows' names, in the order the page offers them. */
export const CHART_WINDOW_NAMES: readonly ChartWindow[] = keysOf(CHART_WINDOWS);

/** The charts read at most this many finished jobs of the queue, newest first. */
export const CHART_MAX_ROWS = 50_000;

/** Jobs of one bucket (or of the whole window) that finished in it. */
export interface ChartBucket {
  finished: number;
  completed: number;
  failed: number;
  /** Wait from run_at to started_at, in milliseconds; null when no job of the bucket started. */
  waitP50Ms: number | null;
  waitP95Ms: number | null;
  /** Execution time, started_at to finished_at, in milliseconds; null when no job of the bucket started. */
  runP50Ms: number | null;
  runP95Ms: number | null;
}

export interface QueueCharts {
  queue: string;
  paused: boolean;
  window: ChartWindow;
  /** Oldest first: index 0 is the bucket furthest back, the last is the current one. */
  buckets: ChartBucket[];
  total: ChartBucket;
  /** The read stopped at CHART_MAX_ROWS, so the oldest part of the window is not counted. */
  truncated: boolean;
}

const EMPTY: ChartBucket = {
  finished: 0,
  completed: 0,
  failed: 0,
  waitP50Ms: null,
  waitP95Ms: null,
  runP50Ms: null,
  runP95Ms: null,
};

/** `?window=` as given, or 1h when absent; anything else is refused by name. */
export function parseChartWindow(raw: string | null): ChartWindow {
  if (raw === null || raw === '') return '1h';
  if (isOneOf(CHART_WINDOW_NAMES, raw)) return raw;
  throw new InvalidOptionError('window', "'1h', '24h' or '7d'", raw);
}

/**
 * A queue's throughput, failures, wait and execution-time percentiles over a window, from one bounded
 * statement. QueueNotFoundError when no queue of that name is stored.
 */
export async function loadQueueCharts(
  core: EngineCore,
  queue: string,
  window: ChartWindow,
): Promise<QueueCharts> {
  const stored = await core.storage.queues.getQueue(queue);
  if (!stored) throw new QueueNotFoundError(queue);
  const shape = CHART_WINDOWS[window];
  const rows = await core.storage.reads.queueChart(
    queue,
    shape.seconds,
    shape.seconds / shape.buckets,
    CHART_MAX_ROWS,
  );
  const buckets = Array.from({ length: shape.buckets }, () => ({ ...EMPTY }));
  let total = { ...EMPTY };
  for (const row of rows) {
    const bucket: ChartBucket = {
      finished: row.finished,
      completed: row.completed,
      failed: row.failed,
      waitP50Ms: row.wait_p50_ms,
      waitP95Ms: row.wait_p95_ms,
      runP50Ms: row.run_p50_ms,
      runP95Ms: row.run_p95_ms,
    };
    if (row.bucket_ago === null) total = bucket;
    else {
      const ago = Math.min(row.bucket_ago, shape.buckets - 1);
      buckets[shape.buckets - 1 - ago] = bucket;
    }
  }
  return {
    queue,
    paused: stored.paused,
    window,
    buckets,
    total,
    truncated: total.finished >= CHART_MAX_ROWS,
  };
}
