import type { EngineCore } from '../engine-core.js';

/** The most running jobs the Running page lists. */
export const RUNNING_SHOWN = 500;

/** A job running now, as the Running page shows it. */
export interface RunningJob {
  id: string;
  queue: string;
  key: string | null;
  attempt: number;
  startedAt: Date | null;
  /** Milliseconds since it started, by the database's clock. */
  elapsedMs: number | null;
  /** The worker holding it. */
  worker: string | null;
  lockedUntil: Date | null;
  /** Its lock lapsed: the worker stopped beating, and the tick will recover the job. */
  stalled: boolean;
}

/** The jobs running now across the cluster, longest running first. */
export async function loadRunning(core: EngineCore): Promise<RunningJob[]> {
  const rows = await core.storage.reads.listRunningJobs(RUNNING_SHOWN);
  return rows.map((row) => {
    const now = new Date(row.now).getTime();
    const started = row.started_at === null ? null : new Date(row.started_at);
    const lockedUntil = row.locked_until === null ? null : new Date(row.locked_until);
    return {
      id: row.id,
      queue: row.queue,
      key: row.key,
      attempt: row.attempts,
      startedAt: started,
      elapsedMs: started === null ? null : Math.max(0, now - started.getTime()),
      worker: row.locked_by,
      lockedUntil,
      stalled: lockedUntil !== null && lockedUntil.getTime() < now,
    };
  });
}
