/**
 * The physical reference for keyed drains: what any worker that keeps a per-key limit strict
 * in the database could do on Tidemark's table. Strict means that no key has more `active`
 * rows than its limit at any moment, so a finished job holds its slot until its outcome has
 * committed, and a claim can only fill the slots the last committed outcomes freed.
 *
 * One connection claims, and is the only claimer, so it needs no lock to count: it walks the
 * keys with ready jobs (one probe each), counts each key's active rows and takes up to the
 * rest of its limit with `FOR UPDATE SKIP LOCKED` (committed without waiting for the WAL
 * flush). A second connection marks what was claimed completed, keeping each row with its
 * purge time (durable commit, up to 1,000 rows per statement). The claimer claims again as
 * soon as an outcome has committed. No tiers, no fairness, no FIFO, no global limit, no
 * worker and no handler: the figure is the bound a keyed drain meets on this machine, to set
 * beside the bare loop of the plain drain (the raw-loop subject) and Tidemark's keyed drain.
 */
import pg from 'pg';
import { silentLogger, Tidemark } from '../../dist/index.js';
import { rawFinishText } from '../subjects/raw-loop.js';
import { BULK_BATCH } from './figures.js';
import { BENCH_URL, dropSchema, freshName, settle } from './postgres.js';
import { rate } from './stats.js';

const QUEUE = 'bench';
/** Most rows a keyed claim takes: Tidemark's adaptive prefetch holds at most this many. */
const KEYED_CLAIM = 1_000;
/** Most rows a finishing statement writes: Tidemark's FINISH_BATCH_MAX. */
const KEYED_FINISH = 1_000;

/** The keyed claim: every key with ready jobs, each up to `$3` active rows. */
function keyedClaimText(table: string): string {
  const ready = `status in ('pending', 'retry', 'waiting')`;
  return /* sql */ `
    update ${table} j
       set status = 'active', attempts = j.attempts + 1, lock_token = gen_random_uuid(),
           locked_by = 'raw-loop', locked_until = now() + interval '60 seconds', started_at = now()
     where j.id = any(array(
       with recursive walk(key) as (
         select (select key from ${table} where queue = $1 and key is not null and ${ready} order by key limit 1)
         union all
         select (select key from ${table} where queue = $1 and key > w.key and key is not null and ${ready}
                  order by key limit 1)
           from walk w where w.key is not null
       )
       select p.id
         from walk w
        cross join lateral (
          select count(*)::int as running from ${table} r
           where r.queue = $1 and r.key = w.key and r.key is not null and r.status = 'active'
        ) r
        cross join lateral (
          select id from ${table}
           where queue = $1 and key = w.key and key is not null and ${ready} and run_at <= now()
           order by priority desc, run_at, id
           limit greatest($3 - r.running, 0)
           for update skip locked
        ) p
        where w.key is not null
        limit $2))
    returning j.id, j.lock_token, j.data`;
}

/**
 * Add `jobs` jobs over `keys` keys to a keyed queue on a fresh Tidemark schema, each key
 * limited to `concurrency`, then drain them with the bare two-connection loop; jobs/s from
 * the first claim to the last commit.
 */
export async function rawKeyedDrain(jobs: number, keys: number, concurrency: number): Promise<number> {
  const schema = freshName('bench_rawk');
  const tm = await Tidemark.open({ database: BENCH_URL, schema, logger: silentLogger });
  const claimer = new pg.Client({ connectionString: BENCH_URL });
  const finisher = new pg.Client({ connectionString: BENCH_URL });
  try {
    tm.createQueue({ name: QUEUE, keys: { concurrency } });
    for (let i = 0; i < jobs; i += BULK_BATCH) {
      await tm.addJobs(
        Array.from({ length: Math.min(BULK_BATCH, jobs - i) }, (_, k) => ({
          queue: QUEUE,
          data: { n: i + k },
          key: `k${(i + k) % keys}`,
        })),
      );
    }
    await settle();
    await Promise.all([claimer.connect(), finisher.connect()]);
    await claimer.query('set synchronous_commit = off');
    const claimText = keyedClaimText(`"${schema}".jobs`);
    const finishText = rawFinishText(schema);

    const ids: string[] = [];
    const tokens: string[] = [];
    let finished = 0;
    // Claim when an outcome has committed since the last claim: a slot may be free.
    let slotsFreed = true;
    let wakeClaimer: (() => void) | null = null;
    let wakeFinisher: (() => void) | null = null;
    const wait = (set: (wake: () => void) => void) => new Promise<void>((resolve) => set(resolve));

    const started = performance.now();
    const claimLoop = async () => {
      while (finished < jobs) {
        if (!slotsFreed) {
          await wait((wake) => {
            wakeClaimer = wake;
          });
          wakeClaimer = null;
          continue;
        }
        slotsFreed = false;
        const { rows } = await claimer.query({
          name: 'raw_keyed_claim',
          text: claimText,
          values: [QUEUE, KEYED_CLAIM, concurrency],
        });
        for (const row of rows) {
          ids.push(row.id);
          tokens.push(row.lock_token);
        }
        wakeFinisher?.();
      }
    };
    const finishLoop = async () => {
      while (finished < jobs) {
        if (ids.length === 0) {
          await wait((wake) => {
            wakeFinisher = wake;
          });
          wakeFinisher = null;
          continue;
        }
        const batchIds = ids.splice(0, KEYED_FINISH);
        const batchTokens = tokens.splice(0, KEYED_FINISH);
        await finisher.query({ name: 'raw_finish', text: finishText, values: [batchIds, batchTokens] });
        finished += batchIds.length;
        slotsFreed = true;
        wakeClaimer?.();
      }
    };
    await Promise.all([claimLoop(), finishLoop()]);
    return rate(jobs, performance.now() - started);
  } finally {
    await Promise.allSettled([claimer.end(), finisher.end()]);
    await tm.close();
    await dropSchema(schema);
  }
}
