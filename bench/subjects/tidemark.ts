import { type DatabaseOption, silentLogger, Tidemark, type Worker } from '../../dist/index.js';
import { BENCH_URL, dropSchema, freshName } from '../support/postgres.js';
import { type JobHandler, jobData, type Session, type Subject } from '../support/subject.js';

const QUEUE = 'bench';

/** Tidemark with its defaults (retention on, STOCK windows); only the concurrency is set. */
export function tidemarkSubject(target: 'pg' | 'pglite'): Subject {
  const database: DatabaseOption = target === 'pg' ? BENCH_URL : 'memory://';
  const session = async (schema: string, owned: boolean): Promise<Session> => {
    const tm = await Tidemark.open({ database, schema, logger: silentLogger });
    let handler: JobHandler = () => undefined;
    tm.createQueue({ name: QUEUE, handler: (job) => handler((job.data as { n: number }).n) });
    await tm.listQueues();
    let worker: Worker | null = null;
    return {
      descriptor: schema,
      async bulkAdd(from, count, batch, payloadBytes) {
        for (let i = 0; i < count; i += batch) {
          const size = Math.min(batch, count - i);
          await tm.addJobs(
            Array.from({ length: size }, (_, k) => ({
              queue: QUEUE,
              data: jobData(from + i + k, payloadBytes),
            })),
          );
        }
      },
      async addOne(n) {
        await tm.addJob({ queue: QUEUE, data: { n } });
      },
      async startWorker(concurrency, fn) {
        handler = fn;
        worker = tm.worker({ queues: [QUEUE], concurrency });
        await worker.start();
      },
      async stopWorker() {
        await worker?.stop();
        worker = null;
      },
      async close() {
        await tm.close();
        if (owned && target === 'pg') await dropSchema(schema);
      },
    };
  };
  return {
    key: target === 'pg' ? 'tidemark' : 'tidemark-pglite',
    label: target === 'pg' ? 'Tidemark' : 'Tidemark (PGlite memory://)',
    settings:
      "defaults (retention on, prefetch adaptive up to 1,000, poll 1 s + LISTEN/NOTIFY); only the concurrency is set (10 unless the figure says otherwise); addJobs for bulk; the handler's return value is kept as the job's output (payload figure)",
    open: () => session(freshName('bench_tm'), true),
    attach: (schema) => session(schema, false),
  };
}
