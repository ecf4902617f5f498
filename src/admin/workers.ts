import type { EngineCore } from '../engine-core.js';
import type { WorkerRecord, WorkerSummary } from '../model/worker.js';

/**
 * The registered workers (live ones first, at most the listing's cap), with how many are live
 * and how many gone over every row, so a crowd of gone rows never hides a live worker.
 */
export interface WorkersView {
  workers: WorkerRecord[];
  live: number;
  gone: number;
  sweeps: LiveSweeps;
}

/** Every registered worker (the Workers page, `tidemark workers`). */
export async function loadWorkers(core: EngineCore): Promise<WorkersView> {
  const [workers, summary] = await Promise.all([
    core.storage.workers.listWorkers(),
    core.storage.workers.summarizeWorkers(),
  ]);
  return { workers, live: summary.live, gone: summary.gone, sweeps: liveSweeps(summary) };
}

/**
 * The retention sweep as the live workers run it: the cluster's sweep, not this process's.
 * `live` counts the live workers, `sweepers` those of them that run the retention sweep;
 * `intervals` (seconds) and `batchSizes` are the distinct values among the sweepers, smallest first.
 */
export type LiveSweeps = Omit<WorkerSummary, 'gone'>;

export function liveSweeps(summary: WorkerSummary): LiveSweeps {
  const { gone: _gone, ...sweeps } = summary;
  return sweeps;
}
