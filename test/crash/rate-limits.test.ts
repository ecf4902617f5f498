import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { LIMITED_QUEUE, LIMITERS } from './fixtures/limited-queues.js';
import { fixtureStarter, useProcessSuite, type WorkerProcess } from './support.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/limited-worker.ts', import.meta.url));
const ACCOUNTS = 5;
const JOBS = 260;
const WORKERS = 3;
const KILLS = 3;

/** The most starts in any span of `periodMs` (a window [t, t + periodMs) from each start). */
function mostInAnyPeriod(starts: number[], periodMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while (sorted[last] - sorted[first] >= periodMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

// Separate processes share a database only through PostgreSQL: registered when the run covers pg.
if (TEST_DRIVERS.includes('pg')) {
  describe('rate limits under kills and retries, three worker processes [pg only]', () => {
    const suite = useProcessSuite(async (tm, schema) => {
      for (const [name, options] of Object.entries(LIMITERS)) await tm.defineLimiter(name, options);
      tm.createQueue(LIMITED_QUEUE);
      await rawQuery(
        tm,
        `create table "${schema}".limit_log (job_id bigint not null, account text not null,
             attempt int not null, worker text not null, at_ms float8 not null)`,
      );
    });
    const { schema, workers } = suite;

    test('starts in any period never pass limit + burst, per limiter and per key, counted from the handlers', {
      timeout: 240_000,
    }, async (t) => {
      const start = fixtureStarter(schema, FIXTURE, workers);
      const live: WorkerProcess[] = [];
      for (let i = 0; i < WORKERS; i++) live.push(await start());
      await suite.tm.addJobs(
        Array.from({ length: JOBS }, (_, i) => ({
          queue: 'calls',
          data: { account: `a${i % ACCOUNTS}`, failOnce: i % 11 === 5 },
        })),
      );
      for (let kills = 0; kills < KILLS; kills++) {
        await sleep(1_500);
        const victim = live.splice(Math.floor(Math.random() * live.length), 1)[0];
        victim.kill('SIGKILL');
        await victim.exited;
        live.push(await start());
      }
      await waitFor(
        'every job to finish',
        async () => {
          const [row] = await rawQuery<{ n: number }>(
            suite.tm,
            `select count(*)::int as n from "${schema}".jobs where status in ('completed', 'failed')`,
          );
          return row.n === JOBS;
        },
        { timeoutMs: 180_000, intervalMs: 200 },
      );
      const rows = await rawQuery<{ account: string; at_ms: number }>(
        suite.tm,
        `select account, at_ms from "${schema}".limit_log`,
      );
      assert.ok(rows.length >= JOBS, 'every job started at least once');
      const all = mostInAnyPeriod(
        rows.map((r) => r.at_ms),
        LIMITERS.all.periodSeconds * 1000,
      );
      t.diagnostic(`${rows.length} starts; the busiest period of 'all' started ${all}`);
      assert.ok(all <= LIMITERS.all.limit + LIMITERS.all.burst, `${all} starts in one period`);
      assert.ok(
        all >= LIMITERS.all.limit - 5,
        `the limiter was pressed (${all} starts in its busiest period)`,
      );
      for (let a = 0; a < ACCOUNTS; a++) {
        const starts = rows.filter((r) => r.account === `a${a}`).map((r) => r.at_ms);
        const most = mostInAnyPeriod(starts, LIMITERS.account.periodSeconds * 1000);
        assert.ok(
          most <= LIMITERS.account.limit + LIMITERS.account.burst,
          `account a${a}: ${most} starts in one period`,
        );
      }
      const [completed] = await rawQuery<{ n: number }>(
        suite.tm,
        `select count(*)::int as n from "${schema}".jobs where status = 'completed'`,
      );
      assert.equal(completed.n, JOBS, 'no job lost or failed by the limiters');
    });
  });
}
