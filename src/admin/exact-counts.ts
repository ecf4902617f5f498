import type { EngineCore } from '../engine-core.js';

/** One (queue, status) cell counted exactly. */
export interface ExactCount {
  queue: string;
  status: string;
  n: number;
}

/** Every job counted by queue and status, exactly (a full scan: for `stats --exact` and the demo). */
export async function countJobsExactly(core: EngineCore, since: Date | null = null): Promise<ExactCount[]> {
  return core.storage.reads.countJobsExactly(since);
}
