import type { EngineCore } from '../engine-core.js';
import type { HoldRecord } from '../retention/holds.js';
import { listSweepRecords } from '../storage/retention-storage.js';
import type { FrozenRetention } from '../storage/rows.js';
import { DEFAULT_SWEEP } from '../worker/worker-options.js';

export interface QueuePolicy {
  queue: string;
  /** The queue's own policy, or the engine default when the queue sets none. */
  windows: FrozenRetention;
  source: 'queue' | 'engine default';
}

export interface SweepRow {
  id: string;
  kind: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  jobs: number;
  signals: number;
  uniqueLocks: number;
  byQueue: { queue: string; status: string; count: number }[];
  error: string | null;
}

export interface RetentionInfo {
  engine: FrozenRetention;
  engineDisabled: boolean;
  policies: QueuePolicy[];
  sweeps: SweepRow[];
  lastRunAt: Date | null;
  /** When the cluster's next sweep is due at the default interval (workers may set another). */
  nextDueAt: Date | null;
  intervalSeconds: number;
  holds: HoldRecord[];
}

/** Effective policies per queue, the last sweeps and when the next is due. */
export async function loadRetentionInfo(core: EngineCore): Promise<RetentionInfo> {
  const [queues, sweeps, turn, holds] = await Promise.all([
    core.storage.listQueues(),
    listSweepRecords(core.storage, 20),
    core.storage.readTurn('retention-sweep'),
    core.storage.controls.listHolds(),
  ]);
  const intervalSeconds = DEFAULT_SWEEP.intervalSeconds;
  const lastRunAt = turn?.lastRunAt ? new Date(turn.lastRunAt) : null;
  return {
    engine: core.engineRetention,
    engineDisabled: core.retentionDisabled,
    policies: queues.map((q) => {
      const own = q.options.retention as FrozenRetention | undefined;
      return own === undefined
        ? { queue: q.name, windows: core.engineRetention, source: 'engine default' }
        : { queue: q.name, windows: own, source: 'queue' };
    }),
    sweeps: (sweeps as unknown as Record<string, unknown>[]).map(toSweepRow),
    lastRunAt,
    nextDueAt: lastRunAt ? new Date(lastRunAt.getTime() + intervalSeconds * 1000) : null,
    intervalSeconds,
    holds,
  };
}

/** Accepts the row in either spelling (snake_case from SQL or the typed camelCase record). */
function toSweepRow(row: Record<string, unknown>): SweepRow {
  const pick = (camel: string, snake: string) => row[camel] ?? row[snake];
  const date = (v: unknown) => (v ? new Date(v as string) : null);
  const detail = (row.detail ?? {}) as { byQueue?: SweepRow['byQueue'] };
  return {
    id: String(row.id),
    kind: String(row.kind ?? 'retention'),
    startedAt: date(pick('startedAt', 'started_at')),
    finishedAt: date(pick('finishedAt', 'finished_at')),
    jobs: Number(row.jobs ?? 0),
    signals: Number(row.signals ?? 0),
    uniqueLocks: Number(pick('uniqueLocks', 'unique_locks') ?? 0),
    byQueue: (row.byQueue as SweepRow['byQueue'] | undefined) ?? detail.byQueue ?? [],
    error: (row.error as string | null | undefined) ?? null,
  };
}
