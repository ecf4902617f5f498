import pg from 'pg';
import { silentLogger, Tidemark } from '../../dist/index.js';
import { BENCH_URL, dropSchema, freshName } from '../support/postgres.js';
import type { JobHandler, Session, Subject } from '../support/subject.js';

const QUEUE = 'bench';

/**
 * Rows per claim and per finishing write, the sizes Tidemark's worker reaches: its adaptive
 * prefetch claims up to the free slots plus 1,000 once its buffer is half empty, and its
 * finishing writes gather what ended meanwhile. On the 20,000-job drain it sends about 0.004
 * statements a job (the drain figure's cost line), claims and writes of about 500 rows. At
 * 250, the sizes of an earlier worker, this loop ran about a tenth slower.
 */
export const RAW_CLAIM = 500;
export const RAW_FINISH = 500;

/**
 * The bare claim: `$2` ready rows without a key of queue `$1`, each job's id, lock token and
 * data. `key is null` is what lets it read jobs_claim_idx (whose predicate says so) in order;
 * without it the claim read and sorted every ready row of the queue.
 */
export function rawClaimText(table: string): string {
  return /* sql */ `
    update ${table} j
       set status = 'active', attempts = j.attempts + 1, lock_token = gen_random_uuid(),
           locked_by = 'raw-loop', locked_until = now() + interval '60 seconds', started_at = now()
     where j.id = any(array(
             select id from ${table}
              where queue = $1 and key is null and status in ('pending', 'retry', 'waiting') and run_at <= now()
              order by priority desc, run_at, id
              limit $2
              for update skip locked))
    returning j.id, j.lock_token, j.data`;
}

/** The bare finish: the rows of ids `$1` still held under tokens `$2` completed, kept with their purge time. */
export function rawFinishText(schema: string): string {
  return /* sql */ `
    update "${schema}".jobs j
       set status = 'completed', output = 'null', finished_at = now(),
           purge_after = "${schema}".purge_time(j.retention, 'completed', now()),
           lock_token = null, locked_by = null, locked_until = null
     where j.id = any($1::bigint[]) and j.lock_token = any($2::uuid[]) and j.status = 'active'`;
}

/**
 * The physical reference for the drain: Tidemark's own table (created by its migrations, so
 * the same columns, indexes and partial predicates), its jobs added by `addJobs`, and then
 * no application at all: one connection claims `RAW_CLAIM` ready rows at a time with
 * `FOR UPDATE SKIP LOCKED` (committed without waiting for the WAL flush, as Tidemark's
 * claims are), reading each job's id, lock token and data (what any worker must read to run
 * a job), and hands them to a second connection that marks up to `RAW_FINISH` of them
 * completed per statement, keeping each row with its purge time (durable commit, as
 * Tidemark's outcomes are). The two overlap as Tidemark's claim loop and finish buffer do.
 * What is left between this and Tidemark is the worker: its bookkeeping, heartbeats,
 * handler calls and JavaScript.
 */
export function rawLoopSubject(): Subject {
  const session = async (schema: string, owned: boolean): Promise<Session> => {
    const tm = await Tidemark.open({ database: BENCH_URL, schema, logger: silentLogger });
    tm.createQueue({ name: QUEUE });
    await tm.listQueues();
    const claimText = rawClaimText(`"${schema}".jobs`);
    const finishText = rawFinishText(schema);
    let running: Promise<void> | null = null;
    let ending: (() => Promise<void>) | null = null;
    let stopping = false;
    return {
      descriptor: schema,
      async bulkAdd(from, count, batch) {
        for (let i = 0; i < count; i += batch) {
          const size = Math.min(batch, count - i);
          await tm.addJobs(
            Array.from({ length: size }, (_, k) => ({ queue: QUEUE, data: { n: from + i + k } })),
          );
        }
      },
      async addOne(n) {
        await tm.addJob({ queue: QUEUE, data: { n } });
      },
      async startWorker(_concurrency: number, handler: JobHandler) {
        const claimer = new pg.Client({ connectionString: BENCH_URL });
        const finisher = new pg.Client({ connectionString: BENCH_URL });
        await Promise.all([claimer.connect(), finisher.connect()]);
        await claimer.query('set synchronous_commit = off');
        stopping = false;
        const ids: string[] = [];
        const tokens: string[] = [];
        let claimedAll = false;
        let wake: (() => void) | null = null;
        const claimLoop = async () => {
          while (!stopping) {
            // Claim again once the finisher has taken most of the last claim, as Tidemark's
            // prefetch refills at half its buffer.
            if (ids.length > RAW_CLAIM) {
              await new Promise((resolve) => setImmediate(resolve));
              continue;
            }
            const { rows } = await claimer.query({
              name: 'raw_claim',
              text: claimText,
              values: [QUEUE, RAW_CLAIM],
            });
            if (rows.length === 0) break;
            for (const row of rows) {
              handler(row.data.n);
              ids.push(row.id);
              tokens.push(row.lock_token);
            }
            wake?.();
          }
          claimedAll = true;
          wake?.();
        };
        const finishLoop = async () => {
          while (!stopping) {
            if (ids.length === 0) {
              if (claimedAll) break;
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              wake = null;
              continue;
            }
            const batchIds = ids.splice(0, RAW_FINISH);
            const batchTokens = tokens.splice(0, RAW_FINISH);
            await finisher.query({ name: 'raw_finish', text: finishText, values: [batchIds, batchTokens] });
          }
        };
        // The connections stay open until stopWorker, as a worker's pool does (and so their
        // server processes are still there to be measured).
        const loops = Promise.all([claimLoop(), finishLoop()]);
        running = loops.then(
          () => undefined,
          (error) => console.error(error),
        );
        ending = async () => {
          await running;
          await Promise.all([claimer.end(), finisher.end()]);
        };
      },
      async stopWorker() {
        stopping = true;
        await ending?.();
        running = null;
        ending = null;
      },
      async close() {
        await tm.close();
        if (owned) await dropSchema(schema);
      },
    };
  };
  return {
    key: 'raw-loop',
    label: 'physical reference: a bare SQL claim-and-finish loop on the Tidemark table, rows kept',
    settings: `two connections on Tidemark's own table: claims of ${RAW_CLAIM} returning each job's id, lock token and data (FOR UPDATE SKIP LOCKED, synchronous_commit off) overlapping finishing writes of up to ${RAW_FINISH} that mark rows completed with their purge time (durable commit); no worker, no handler work`,
    open: () => session(freshName('bench_raw'), true),
    attach: (schema) => session(schema, false),
  };
}
