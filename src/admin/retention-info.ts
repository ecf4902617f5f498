import type { EngineCore } from '../engine-core.js';
import { ALL_STATUSES } from '../job-status.js';
import { RETENTION_TURN } from '../maintenance/retention-sweep/turn.js';
import type { FrozenRetention } from '../model/job.js';
import { WINDOW_KEYS } from '../model/job.js';
import type { SweepRecord } from '../model/sweep.js';
import type { HoldRecord } from '../retention/holds.js';
import { type LiveSweeps, liveSweeps } from './workers.js';

/** How many of a queue's newest jobs are read for the windows they carry. */
export const RECENT_JOBS = 200;

export interface QueuePolicy {
  queue: string;
  /** The queue's own policy, or the engine default when the queue sets none. */
  windows: FrozenRetention;
  source: 'queue' | 'engine default';
  /**
   * The windows frozen on the queue's newest jobs (up to RECENT_JOBS), most common first:
   * what retention will apply to them, whatever the policy says now.
   */
  carried: { windows: FrozenRetention; jobs: number; matchesPolicy: boolean }[];
}

export interface SweepRow {
  id: string;
  kind: string;
  startedAt: Date | null;
  finishedAt: Date | null;
  jobs: number;
  signals: number;
  logLines: number;
  uniqueLocks: number;
  byQueue: { queue: string; status: string; count: number }[];
  error: string | null;
}

export interface RetentionInfo {
  engine: FrozenRetention;
  engineDisabled: boolean;
  policies: QueuePolicy[];
  sweeps: SweepRow[];
  /** The last sweep turn any worker took. */
  lastRunAt: Date | null;
  /**
   * When a live worker takes the next turn: the last turn plus the shortest interval among
   * the live workers that sweep (now when that has passed). Null when none sweeps, or none has.
   */
  nextDueAt: Date | null;
  /** The sweep as the live workers run it (from their rows, not this process's options). */
  workers: LiveSweeps;
  holds: HoldRecord[];
}

/** Effective policies per queue with the windows their jobs carry, the last sweeps and the next. */
export async function loadRetentionInfo(core: EngineCore): Promise<RetentionInfo> {
  const [queues, sweeps, turn, holds, workers, carried] = await Promise.all([
    core.storage.queues.listQueues(),
    core.storage.reads.listSweepRecords(20),
    core.storage.maintenance.readTurn(RETENTION_TURN),
    core.storage.controls.listHolds(),
    core.storage.workers.summarizeWorkers(),
    core.storage.reads.retentionCarried(ALL_STATUSES, RECENT_JOBS),
  ]);
  const live = liveSweeps(workers);
  const lastRunAt = turn?.lastRunAt ? new Date(turn.lastRunAt) : null;
  const shortest = live.intervals[0];
  const nextDueAt =
    lastRunAt && shortest !== undefined
      ? new Date(Math.max(lastRunAt.getTime() + shortest * 1000, core.clock.now()))
      : null;
  return {
    engine: core.engineRetention,
    engineDisabled: core.retentionDisabled,
    policies: queues.map((q) => {
      const own = q.options.retention;
      const windows = own ?? core.engineRetention;
      return {
        queue: q.name,
        windows,
        source: own === undefined ? 'engine default' : 'queue',
        carried: carried
          .filter((c) => c.queue === q.name)
          .map((c) => ({
            windows: c.retention,
            jobs: c.jobs,
            matchesPolicy: sameWindows(c.retention, windows),
          })),
      };
    }),
    sweeps: sweeps.map(toSweepRow),
    lastRunAt,
    nextDueAt,
    workers: live,
    holds,
  };
}

/** Equal windows: an absent window and 0 both mean "kept forever". */
function sameWindows(a: FrozenRetention, b: FrozenRetention): boolean {
  return WINDOW_KEYS.every((k) => (a[k] || 0) === (b[k] || 0));
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
    logLines: sweep.logLines ?? 0,
    uniqueLocks: sweep.uniqueLocks,
    byQueue: sweep.byQueue,
    error: sweep.error,
  };
}
