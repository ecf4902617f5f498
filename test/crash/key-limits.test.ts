import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { KEYED_QUEUES, limitOf } from './fixtures/keyed-queues.js';
import { fixtureStarter, useProcessSuite, type WorkerProcess } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/keyed-worker.ts', import.meta.url));
const TENANT_KEYS = 8;
const TENANT_JOBS = 800;
const SEQUENCE_KEYS = 3;
const SEQUENCE_JOBS = 80;
const WORKERS = 3;
const KILLS = 6;
const CANCELS = 40;

interface LogRow {
  job_id: string;
  queue: string;
  key: string;
  attempt: number;
  worker: string;
  event: 'start' | 'end' | 'killed';
  at: Date;
  n: number | null;
  tier: string | null;
}

/**
 * The most attempts of one key that ran at once, from the handlers' log: each attempt runs
 * from its start row to its end row, or, when its process was killed first, to the moment
 * the test saw that process gone.
 */
function mostAtOnce(rows: LogRow[]): Map<string, number> {
  const killedAt = new Map(rows.filter((r) => r.event === 'killed').map((r) => [r.worker, r.at.getTime()]));
  const edges = new Map<string, { at: number; step: number }[]>();
  const open = new Map<string, LogRow>();
  for (const row of rows) {
    if (row.event === 'killed') continue;
    const attempt = `${row.job_id}/${row.attempt}/${row.worker}`;
    if (row.event === 'start') open.set(attempt, row);
    else open.delete(attempt);
    const key = `${row.queue}/${row.key}`;
    const list = edges.get(key) ?? [];
    list.push({ at: row.at.getTime(), step: row.event === 'start' ? 1 : -1 });
    edges.set(key, list);
  }
  for (const row of open.values()) {
    const end = killedAt.get(row.worker);
    assert.ok(
      end !== undefined,
      `attempt ${row.job_id}/${row.attempt} never ended and its worker was not killed`,
    );
    edges.get(`${row.queue}/${row.key}`)?.push({ at: end, step: -1 });
  }
  const most = new Map<string, number>();
  for (const [key, list] of edges) {
    // At one instant, ends before starts: an attempt ending as the next begins is no overlap.
    list.sort((a, b) => a.at - b.at || a.step - b.step);
    let now = 0;
    let peak = 0;
    for (const { step } of list) {
      now += step;
      peak = Math.max(peak, now);
    }
    most.set(key, peak);
  }
  return most;
}

// Separate processes share a database only through PostgreSQL: registered when the run covers pg.
if (TEST_DRIVERS.includes('pg')) {
  describe('flow control under kills, cancels and retries, three worker processes [pg only]', () => {
    const suite = useProcessSuite(async (tm, schema) => {
      for (const queue of KEYED_QUEUES) tm.createQueue(queue);
      await rawQuery(
        tm,
        `create table "${schema}".key_log (job_id bigint not null, queue text not null, key text,
             attempt int not null, worker text not null, event text not null,
             at timestamptz not null default clock_timestamp())`,
      );
    });
    const { schema, workers } = suite;

    test('no key ever runs more than its limit, and each sequence keeps its order', {
      timeout: 240_000,
    }, async () => {
      const start = fixtureStarter(schema, FIXTURE, workers);
      const live: WorkerProcess[] = [];
      for (let i = 0; i < WORKERS; i++) live.push(await start());

      const tenantIds = (
        await suite.tm.addJobs(
          Array.from({ length: TENANT_JOBS }, (_, i) => ({
            queue: 'tenants',
            key: `t${i % TENANT_KEYS}`,
            tier: i % TENANT_KEYS < 2 ? 'pro' : undefined,
            data: { failOnce: i % 10 === 3 },
          })),
        )
      ).map((r) => r.id);
      for (let n = 0; n < SEQUENCE_JOBS; n++) {
        await suite.tm.addJobs(
          Array.from({ length: SEQUENCE_KEYS }, (_, k) => ({
            queue: 'sequences',
            key: `s${k}`,
            data: { n, failOnce: n % 7 === 2 },
            // Priorities that would reorder a key's jobs if the order were not FIFO.
            priority: (n * 5) % 3,
          })),
        );
      }
      const total = TENANT_JOBS + SEQUENCE_KEYS * SEQUENCE_JOBS;

      // Sample what the database says runs, per key, while the workers are killed and jobs cancelled.
      const sampled = new Map<string, number>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const rows = await rawQuery<{ queue: string; key: string; tier: string | null; n: number }>(
            suite.tm,
            `select queue, key, max(tier) as tier, count(*)::int as n from "${schema}".jobs
              where key is not null
                and (status = 'active' or status = 'cancelled' and lock_token is not null and locked_until > now())
              group by queue, key`,
          );
          for (const row of rows) {
            const key = `${row.queue}/${row.key}`;
            sampled.set(key, Math.max(sampled.get(key) ?? 0, row.n));
          }
          await sleep(10);
        }
      })();

      let kills = 0;
      let cancels = 0;
      const killedRows: Promise<unknown>[] = [];
      while (kills < KILLS || cancels < CANCELS) {
        await sleep(250);
        for (let c = 0; c < 8 && cancels < CANCELS; c++, cancels++) {
          await suite.tm.cancelJob(tenantIds[Math.floor(Math.random() * tenantIds.length)]);
        }
        if (kills < KILLS) {
          const victim = live.splice(Math.floor(Math.random() * live.length), 1)[0];
          victim.kill('SIGKILL');
          await victim.exited;
          const name = `w${workers.indexOf(victim)}`;
          killedRows.push(
            rawQuery(
              suite.tm,
              `insert into "${schema}".key_log (job_id, queue, worker, attempt, event) values (0, '', $1, 0, 'killed')`,
              [name],
            ),
          );
          kills++;
          live.push(await start());
        }
      }
      await Promise.all(killedRows);
      await waitFor(
        'every job to finish',
        async () => {
          const [row] = await rawQuery<{ n: number }>(
            suite.tm,
            `select count(*)::int as n from "${schema}".jobs where status in ('completed', 'cancelled', 'failed')`,
          );
          return row.n === total;
        },
        { timeoutMs: 180_000, intervalMs: 200 },
      );
      sampling = false;
      await sampler;

      const rows = await rawQuery<LogRow>(
        suite.tm,
        `select l.job_id::text as job_id, l.queue, l.key, l.attempt, l.worker, l.event, l.at,
                (j.data ->> 'n')::int as n, j.tier
           from "${schema}".key_log l left join "${schema}".jobs j on j.id = l.job_id
          order by l.at, l.event desc`,
      );
      const logged = mostAtOnce(rows);
      const tierOf = new Map(rows.filter((r) => r.key).map((r) => [`${r.queue}/${r.key}`, r.tier]));
      for (const [key, most] of logged) {
        const [queue] = key.split('/');
        assert.ok(
          most <= limitOf(queue, tierOf.get(key) ?? null),
          `${key}: ${most} ran at once (handlers' log)`,
        );
      }
      for (const [key, most] of sampled) {
        const [queue] = key.split('/');
        assert.ok(
          most <= limitOf(queue, tierOf.get(key) ?? null),
          `${key}: ${most} running at once (database)`,
        );
      }
      // FIFO: a sequence's starts never go back to an earlier job, and every job completed.
      for (let k = 0; k < SEQUENCE_KEYS; k++) {
        const starts = rows.filter(
          (r) => r.queue === 'sequences' && r.key === `s${k}` && r.event === 'start',
        );
        for (let i = 1; i < starts.length; i++) {
          assert.ok(
            (starts[i].n ?? 0) >= (starts[i - 1].n ?? 0),
            `s${k}: job ${starts[i].n} started after job ${starts[i - 1].n}`,
          );
        }
      }
      const [sequences] = await rawQuery<{ n: number }>(
        suite.tm,
        `select count(*)::int as n from "${schema}".jobs where queue = 'sequences' and status = 'completed'`,
      );
      assert.equal(sequences.n, SEQUENCE_KEYS * SEQUENCE_JOBS);
      const [recovered] = await rawQuery<{ n: number }>(
        suite.tm,
        `select count(distinct job_id)::int as n from "${schema}".key_log l
          where event = 'start' and exists (select 1 from "${schema}".key_log k where k.job_id = l.job_id
                                              and k.event = 'start' and k.worker <> l.worker)`,
      );
      const peak = (map: Map<string, number>) =>
        [...map]
          .sort()
          .map(([key, n]) => `${key}=${n}`)
          .join(' ');
      console.log(
        `flow-control stress: ${workers.length} worker runs, ${kills} SIGKILLs, ${total} jobs, ${cancels} cancels, ` +
          `${recovered.n} jobs started in two processes or more; most at once per key, handlers' log: ${peak(logged)}; database: ${peak(sampled)}`,
      );
      assert.ok(recovered.n > 0, 'some jobs were recovered from killed workers');
    });
  });
}
