import { Logger, makeWorkerUtils, type Runner, run, type WorkerUtils } from 'graphile-worker';
import { BENCH_URL, dropSchema, freshName } from '../support/postgres.js';
import type { JobHandler, Session, Subject } from '../support/subject.js';

const TASK = 'bench';
// graphile-worker logs every completed job at info level; both sides run without logging.
const quiet = new Logger(() => () => {});

/**
 * graphile-worker 0.17 with its defaults, or with the batching its performance guide
 * documents (local queue of 500 jobs, completion and failure batching with delay 0).
 */
export function graphileSubject(batched: boolean): Subject {
  const preset = batched
    ? { worker: { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } }
    : undefined;
  const session = async (schema: string, owned: boolean): Promise<Session> => {
    const utils: WorkerUtils = await makeWorkerUtils({ connectionString: BENCH_URL, schema, logger: quiet });
    if (owned) await utils.migrate();
    let runner: Runner | null = null;
    return {
      descriptor: schema,
      async bulkAdd(from, count, batch) {
        for (let i = 0; i < count; i += batch) {
          const size = Math.min(batch, count - i);
          await utils.addJobs(
            Array.from({ length: size }, (_, k) => ({ identifier: TASK, payload: { n: from + i + k } })),
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
          ...(preset ? { preset } : {}),
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
  return {
    key: batched ? 'graphile-batched' : 'graphile',
    label: batched ? 'graphile-worker 0.17 (batched)' : 'graphile-worker 0.17 (defaults)',
    settings: batched
      ? 'concurrency 10, localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0 (its performance guide); addJobs for bulk'
      : 'concurrency 10, everything else default (pollInterval 2 s + LISTEN/NOTIFY); addJobs for bulk',
    open: () => session(freshName('bench_gw'), true),
    attach: (schema) => session(schema, false),
  };
}
