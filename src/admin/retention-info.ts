import type { EngineCore } from '../engine-core.js';
import type { SweepRecord } from '../model/sweep.js';
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
      const own = q.options.retention;
      return own === undefined
        ? { queue: q.name, windows: core.engineRetention, source: 'engine default' }
        : { queue: q.name, windows: own, source: 'queue' };
    }),
    sweeps: sweeps.map(toSweepRow),
    lastRunAt,
    nextDueAt: lastRunAt ? new Date(lastRunAt.getTime() + intervalSeconds * 1000) : null,
    intervalSeconds,
    holds,
  };
}

/** A sweep record as the retention page shows it. */
function toSweepRow(sweep: SweepRecord): SweepRow {
  return {
    id: sweep.id,
    kind: sweep.kind,
    startedAt: sweep.startedAt,
    finishedAt: sweep.finishedAt,
    jobs: sweep.jobs,
    signals: sweep.signals,
    uniqueLocks: sweep.uniqueLocks,
    byQueue: sweep.byQueue,
    error: sweep.error,
  };
}
