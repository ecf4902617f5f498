import { createPostgresBackend, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { BENCH_URL, dropSchema, freshName } from '../support/postgres.js';
import { type JobHandler, jobData, type Session, type Subject } from '../support/subject.js';

export const REDIS_URL = process.env.TIDEMARK_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** BullMQ 6 on Redis, or on its PostgreSQL backend; defaults except the concurrency. */
export function bullmqSubject(backend: 'redis' | 'pg'): Subject {
  const session = async (name: string, owned: boolean): Promise<Session> => {
    // biome-ignore lint/suspicious/noExplicitAny: the two backends take different connection types
    let options: any;
    const closers: (() => Promise<unknown>)[] = [];
    if (backend === 'redis') {
      const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      closers.push(async () => connection.quit());
      options = { connection };
    } else {
      options = { connection: { connectionString: BENCH_URL, schema: name, migrate: true } };
    }
    const extra = backend === 'pg' ? [createPostgresBackend] : [];
    // biome-ignore lint/suspicious/noExplicitAny: see above
    const queue = new (Queue as any)('bench', { ...options, prefix: name }, ...extra) as Queue;
    await queue.waitUntilReady();
    let worker: Worker | null = null;
    return {
      descriptor: name,
      async bulkAdd(from, count, batch, payloadBytes) {
        for (let i = 0; i < count; i += batch) {
          const size = Math.min(batch, count - i);
          await queue.addBulk(
            Array.from({ length: size }, (_, k) => ({
              name: 'bench',
              data: jobData(from + i + k, payloadBytes),
            })),
          );
        }
      },
      async addOne(n) {
        await queue.add('bench', { n });
      },
      async startWorker(concurrency, handler: JobHandler) {
        // biome-ignore lint/suspicious/noExplicitAny: see above
        worker = new (Worker as any)(
          'bench',
          async (job: { data: { n: number } }) => handler(job.data.n),
          { ...options, prefix: name, concurrency },
          ...extra,
        ) as Worker;
        worker.on('error', () => {});
        await worker.waitUntilReady();
      },
      async stopWorker() {
        await worker?.close();
        worker = null;
      },
      async close() {
        await worker?.close();
        if (owned && backend === 'redis') await queue.obliterate({ force: true });
        await queue.close();
        for (const close of closers) await close();
        if (owned && backend === 'pg') await dropSchema(name);
      },
    };
  };
  return {
    key: backend === 'redis' ? 'bullmq-redis' : 'bullmq-pg',
    label: backend === 'redis' ? 'BullMQ 6 (Redis)' : 'BullMQ 6 (PostgreSQL backend)',
    server: backend === 'redis' ? 'redis' : 'postgres',
    settings:
      backend === 'redis'
        ? `concurrency 10 unless the figure says otherwise, defaults otherwise; addBulk for bulk; the processor's return value is kept as the job's returnvalue (completed jobs kept, the default); Redis at ${REDIS_URL}`
        : "concurrency 10 unless the figure says otherwise, createPostgresBackend with a fresh schema, defaults otherwise; addBulk for bulk; the processor's return value is kept as the job's returnvalue (completed jobs kept, the default)",
    open: () => session(freshName(backend === 'redis' ? 'benchbq' : 'bench_bq'), true),
    attach: (name) => session(name, false),
  };
}
