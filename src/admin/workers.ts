import type { EngineCore } from '../engine-core.js';
import type { WorkerRecord } from '../model/worker.js';

/** The registered workers, with how many are live and how many gone. */
export interface WorkersView {
  workers: WorkerRecord[];
  live: number;
  gone: number;
}

/** Every registered worker (the Workers page, `tidemark workers`). */
export async function loadWorkers(core: EngineCore): Promise<WorkersView> {
  const workers = await core.storage.listWorkers();
  const gone = workers.filter((w) => w.gone).length;
  return { workers, live: workers.length - gone, gone };
}

/** The retention sweep as the live workers run it: the cluster's sweep, not this process's. */
export interface LiveSweeps {
  /** Live workers, and those of them that run the retention sweep. */
  live: number;
  sweepers: number;
  /** Distinct sweep intervals (seconds) and batch sizes among the sweepers, smallest first. */
  intervals: number[];
  batchSizes: number[];
}

export function liveSweeps(workers: WorkerRecord[]): LiveSweeps {
  const live = workers.filter((w) => !w.gone);
  const sweeps = live.flatMap((w) => (w.settings.sweep ? [w.settings.sweep] : []));
  const distinct = (values: number[]) => [...new Set(values)].sort((a, b) => a - b);
  return {
    live: live.length,
    sweepers: sweeps.length,
    intervals: distinct(sweeps.map((s) => s.intervalSeconds)),
    batchSizes: distinct(sweeps.map((s) => s.batchSize)),
  };
}
