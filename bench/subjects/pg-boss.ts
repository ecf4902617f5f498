import PgBoss from 'pg-boss';
import { BENCH_URL, dropSchema, freshName } from '../support/postgres.js';
import { type JobHandler, jobData, type Session, type Subject } from '../support/subject.js';

const QUEUE = 'bench';
const WORKERS = 10;

/**
 * pg-boss 10: work() has no concurrency option, so concurrency 10 is ten work() loops, each
 * fetching batches of `batchSize` at the shortest polling interval it accepts (0.5 s) and
 * running its batch one job at a time. It has no LISTEN: pickup waits for a poll, and each
 * loop waits out the interval after every batch it fetched (its worker sleeps unless told
 * otherwise), so a drain runs at most loops x batchSize / 0.5 s: 2,000 jobs/s with ten loops
 * of 100. The large-batch setting lifts that bound to 20,000 jobs/s.
 */
export function pgBossSubject(batchSize = 100): Subject {
  const session = async (schema: string, owned: boolean): Promise<Session> => {
    const boss = new PgBoss({ connectionString: BENCH_URL, schema, schedule: false });
    boss.on('error', () => {});
    await boss.start();
    if (owned) await boss.createQueue(QUEUE);
    let working = false;
    return {
      descriptor: schema,
      async bulkAdd(from, count, batch, payloadBytes) {
        for (let i = 0; i < count; i += batch) {
          const size = Math.min(batch, count - i);
          await boss.insert(
            Array.from({ length: size }, (_, k) => ({
              name: QUEUE,
              data: jobData(from + i + k, payloadBytes),
            })),
          );
        }
      },
      async addOne(n) {
        await boss.send(QUEUE, { n });
      },
      async startWorker(concurrency, handler: JobHandler) {
        working = true;
        const loops = concurrency === 10 ? WORKERS : concurrency;
        for (let i = 0; i < loops; i++) {
          await boss.work<{ n: number }>(QUEUE, { batchSize, pollingIntervalSeconds: 0.5 }, async (jobs) => {
            for (const job of jobs) await handler(job.data.n);
          });
        }
      },
      async stopWorker() {
        if (working) await boss.offWork(QUEUE);
        working = false;
      },
      async close() {
        await boss.stop({ graceful: false, wait: true });
        if (owned) await dropSchema(schema);
      },
    };
  };
  return {
    key: batchSize === 100 ? 'pg-boss' : 'pg-boss-large-batch',
    label: batchSize === 100 ? 'pg-boss 10' : `pg-boss 10 (batchSize ${batchSize})`,
    settings: `concurrency N = N work() loops (10 unless the figure says otherwise), each with batchSize ${batchSize}, pollingIntervalSeconds 0.5 (its minimum) and running its batch's jobs one after another; schedule off; insert() for bulk; the handler's results are not kept as outputs (work() stores a handler's return value only for a batch of one job)`,
    open: () => session(freshName('bench_pb'), true),
    attach: (schema) => session(schema, false),
  };
}
