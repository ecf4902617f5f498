import type { Runner } from '../runner.js';
import { type CarriedRetentionRow, carriedRetention } from '../sql/carried-retention.js';
import { queueDepths } from '../sql/metrics.js';
import { type QueueChartRow, queueChartBuckets } from '../sql/queue-charts.js';

export type { CarriedRetentionRow } from '../sql/carried-retention.js';
export type { QueueChartRow } from '../sql/queue-charts.js';

/** A queue's finished jobs over a window, per bucket and (bucket_ago null) in all. */
export async function queueChart(
  db: Runner,
  queue: string,
  windowSeconds: number,
  bucketSeconds: number,
  maxRows: number,
): Promise<QueueChartRow[]> {
  const rows = await db.run(queueChartBuckets, {
    queue,
    window_seconds: windowSeconds,
    bucket_seconds: bucketSeconds,
    max_rows: maxRows,
  });
  const number = (value: number | null) => (value === null ? null : Number(value));
  return rows.map((row) => ({
    bucket_ago: number(row.bucket_ago),
    finished: Number(row.finished),
    completed: Number(row.completed),
    failed: Number(row.failed),
    wait_p50_ms: number(row.wait_p50_ms),
    wait_p95_ms: number(row.wait_p95_ms),
    run_p50_ms: number(row.run_p50_ms),
    run_p95_ms: number(row.run_p95_ms),
  }));
}

/** The windows frozen on each queue's newest `limit` jobs, grouped. */
export async function retentionCarried(
  db: Runner,
  statuses: readonly string[],
  limit: number,
): Promise<CarriedRetentionRow[]> {
  const rows = await db.run(carriedRetention, { statuses: [...statuses], limit });
  return rows.map((row) => ({ ...row, jobs: Number(row.jobs) }));
}

/** Jobs waiting to run per stored queue (pending and retry). */
export async function depthOfQueues(db: Runner): Promise<{ queue: string; depth: number }[]> {
  const rows = await db.run(queueDepths, {});
  return rows.map((row) => ({ queue: row.queue, depth: Number(row.depth) }));
}
