/**
 * One measurement in its own process, so no run inherits another's pools, timers or heap:
 *   child.ts <figure> <subject>          prints "@@result <json>"
 *   child.ts worker <subject> <storage> <concurrency>  a worker process of a multi-process drain
 */
import { subjectByKey } from '../subjects/index.js';
import { dependencyDrain } from './dependency-figures.js';
import {
  ASYNC_JOBS,
  asyncHandler,
  BULK_ONE_CALL_JOBS,
  bulkEnqueue,
  drain,
  drainProcesses,
  type Figures,
  JOBS,
  payloadDrain,
  pickupLatency,
  realisticDrain,
  SCALE_OUT_PROCESSES,
  scaleOutDrain,
  singleEnqueue,
  workForParent,
} from './figures.js';
import {
  batchDrain,
  fairnessDelay,
  hotKeysDrain,
  limitedDrain,
  manyKeysDrain,
  mixedDrain,
  notesDrain,
  tracedDrain,
} from './keys-figures.js';
import { firstOpen, folderDrain } from './pglite-folder-figures.js';
import {
  drainBesideSweep,
  pgBossMaintain,
  pgBossRemoval,
  rawBatchedDelete,
  sweepBesideKeptRows,
  tidemarkSweep,
  tidemarkSweepPglite,
  withHistory,
} from './retention-figures.js';

const [figure, key, descriptor, concurrency] = process.argv.slice(2);

async function measure(): Promise<Figures> {
  switch (figure) {
    case 'bulk':
      return bulkEnqueue(subjectByKey(key));
    case 'single':
      return singleEnqueue(subjectByKey(key));
    case 'drain':
      return drain(subjectByKey(key));
    case 'drain2':
      return drainProcesses(subjectByKey(key), 2);
    case 'drain4':
      return scaleOutDrain(subjectByKey(key), SCALE_OUT_PROCESSES);
    case 'drain25':
      return scaleOutDrain(subjectByKey(key), 1);
    case 'realistic':
      return realisticDrain(subjectByKey(key));
    case 'payload':
      return payloadDrain(subjectByKey(key));
    case 'bulk1':
      return bulkEnqueue(subjectByKey(key), BULK_ONE_CALL_JOBS, BULK_ONE_CALL_JOBS);
    case 'latency':
      return pickupLatency(subjectByKey(key));
    case 'async':
      return drain(subjectByKey(key), ASYNC_JOBS, asyncHandler);
    case 'history': {
      // Paired in one process: the same drain on an empty table, then beside a million kept rows.
      const empty = await drain(subjectByKey(key));
      const history = await drain(subjectByKey(key), JOBS, undefined, withHistory);
      return { empty: empty.jobsPerSecond, jobsPerSecond: history.jobsPerSecond };
    }
    case 'sweep':
      if (key === 'tidemark') return tidemarkSweep('plain');
      if (key === 'raw-delete') return rawBatchedDelete('plain', 'jobs');
      if (key === 'raw-delete-cascade') return rawBatchedDelete('plain', 'cascade');
      if (key === 'pg-boss') return pgBossMaintain();
      if (key === 'pg-boss-removal') return pgBossRemoval();
      if (key === 'tidemark-pglite') return tidemarkSweepPglite();
      throw new Error(`no sweep for ${key}`);
    case 'sweep-realistic':
      if (key === 'tidemark') return tidemarkSweep('realistic');
      if (key === 'raw-delete-dependents') return rawBatchedDelete('realistic', 'dependents');
      throw new Error(`no realistic sweep for ${key}`);
    case 'sweep-scale':
      return sweepBesideKeptRows();
    case 'sweep-drain':
      return drainBesideSweep();
    case 'keys-mixed':
      return mixedDrain();
    case 'keys-1000':
      return manyKeysDrain();
    case 'keys-hot':
      return hotKeysDrain();
    case 'fairness':
      return fairnessDelay();
    case 'limiter':
      return limitedDrain();
    case 'dependencies':
      return dependencyDrain();
    case 'batch':
      return batchDrain();
    case 'notes':
      return notesDrain();
    case 'tracing':
      return tracedDrain();
    case 'pglite-folder':
      return { ...(await firstOpen()), ...(await folderDrain()) };
    default:
      throw new Error(`unknown figure ${figure}`);
  }
}

if (figure === 'worker') {
  await workForParent(subjectByKey(key), descriptor, Number(concurrency));
} else {
  try {
    const result = await measure();
    process.stdout.write(`@@result ${JSON.stringify(result)}\n`);
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  }
}
