import { Logger, makeWorkerUtils, type Runner, run, type WorkerUtils } from 'graphile-worker';
import { BENCH_URL, dropSchema, freshName } from '../support/postgres.js';
import { type JobHandler, jobData, type Session, type Subject } from '../support/subject.js';

const TASK = 'bench';
// graphile-worker logs every completed job at info level; both sides run without logging.
const quiet = new Logger(() => () => {});

/**
 * graphile-worker 0.17 with its defaults, or with batching: a local queue of `localQueue`
 * jobs (500 in its performance guide; concurrency + 1 in its release notes), completion
 * and failure batching with delay 0, and a pool larger than the concurrency, as its guide has.
 */
export function graphileSubject(localQueue?: number): Subject {
  const batched = localQueue !== undefined;
  const preset = batched
    ? { worker: { localQueue: { size: localQueue }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } }
    : undefined;
  const session = async (schema: string, owned: boolean): Promise<Session> => {
    const utils: WorkerUtils = await makeWorkerUtils({ connectionString: BENCH_URL, schema, logger: quiet });
    if (owned) await utils.migrate();
    let runner: Runner | null = null;
    return {
      descriptor: schema,
      async bulkAdd(from, count, batch, payloadBytes) {
        for (let i = 0; i < count; i += batch) {
          const size = Math.min(batch, count - i);
          await utils.addJobs(
            Array.from({ length: size }, (_, k) => ({
              identifier: TASK,
              payload: jobData(from + i + k, payloadBytes),
            })),
          );
        }
      },
      async addOne(n) {
        await utils.addJob(TASK, { n });
      },
      async startWorker(concurrency, handler: JobHandler) {
        runner = await run({
          connectionString: BENCH_URL,
          schema,
          concurrency,
          noHandleSignals: true,
          logger: quiet,
          taskList: {
            [TASK]: async (payload) => {
              await handler((payload as { n: number }).n);
            },
          },
          // Its options' docs recommend a pool of concurrentJobs + 2 (or 10, if larger): with a
          // local queue, fetches and batched completions need connections beside the jobs.
          ...(preset ? { preset, maxPoolSize: concurrency + 2 } : {}),
        });
      },
      async stopWorker() {
        await runner?.stop();
        runner = null;
      },
      async close() {
        await runner?.stop();
        await utils.release();
        if (owned) await dropSchema(schema);
      },
    };
  };
  const source =
    localQueue === 500 ? 'its performance guide' : 'concurrency + 1, as its release notes recommend';
  return {
    key: !batched ? 'graphile' : localQueue === 500 ? 'graphile-batched' : 'graphile-batched-small',
    label: !batched
      ? 'graphile-worker 0.17 (defaults)'
      : `graphile-worker 0.17 (batched, local queue ${localQueue})`,
    settings: `${
      batched
        ? `concurrency 10 unless the figure says otherwise, localQueue.size ${localQueue} (${source}${localQueue === 500 ? '' : '; kept at 11 in the figures at concurrency 25 and 100'}), completeJobBatchDelay 0, failJobBatchDelay 0, maxPoolSize concurrency + 2 (concurrentJobs + 2, as its docs recommend: 12 at concurrency 10, 27 at 25, 102 at 100; per process in the multi-process drains)`
        : 'concurrency 10 unless the figure says otherwise, everything else default (pollInterval 2 s + LISTEN/NOTIFY; maxPoolSize 10, so at concurrency 25 and 100 the jobs wait for its 10 connections)'
    }; addJobs for bulk; the task's return value is not kept (no output column; a completed job is deleted)`,
    open: () => session(freshName('bench_gw'), true),
    attach: (schema) => session(schema, false),
  };
}
