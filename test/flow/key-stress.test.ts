import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';

const KEYS = 6;
const JOBS = 360;
const SEQUENCE_JOBS = 40;

describeEachDriver(
  'flow control under cancels and retries, three workers in one process',
  ({ kind, open }) => {
    test('no key runs more than its limit and each FIFO key keeps its order', {
      timeout: 120_000,
    }, async () => {
      const tm = await open({ logger: silentLogger });
      const running = new Map<string, number>();
      const most = new Map<string, number>();
      const sequence: number[] = [];
      const handler = async (job: { key: string | null; queue: string; attempts: number; data: unknown }) => {
        const key = `${job.queue}/${job.key}`;
        const now = (running.get(key) ?? 0) + 1;
        running.set(key, now);
        most.set(key, Math.max(most.get(key) ?? 0, now));
        const { n, failOnce } = job.data as { n: number; failOnce: boolean };
        if (job.queue === 'sequence') sequence.push(n);
        await sleep(Math.random() * 4);
        running.set(key, (running.get(key) ?? 1) - 1);
        if (failOnce && job.attempts === 1) throw new Error('the first attempt fails');
      };
      const backoff = { delaySeconds: 0.01, jitter: false };
      tm.createQueue({
        name: 'tenants',
        keys: { concurrency: { default: 2, tiers: { pro: 3 } } },
        backoff,
        handler,
      });
      tm.createQueue({ name: 'sequence', keys: { concurrency: 1, order: 'fifo' }, backoff, handler });
      const ids = (
        await tm.addJobs(
          Array.from({ length: JOBS }, (_, i) => ({
            queue: 'tenants',
            key: `t${i % KEYS}`,
            tier: i % KEYS === 0 ? 'pro' : undefined,
            data: { n: i, failOnce: i % 9 === 4 },
          })),
        )
      ).map((r) => r.id);
      for (let n = 0; n < SEQUENCE_JOBS; n++) {
        await tm.addJob({ queue: 'sequence', key: 's', data: { n, failOnce: n % 5 === 1 }, priority: n % 3 });
      }
      // Sample what the database counts as running, per key, while three workers race.
      const sampled = new Map<string, number>();
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const rows = await rawQuery<{ key: string; n: number }>(
            tm,
            `select queue || '/' || key as key, count(*)::int as n from "${tm.schema}".jobs
            where key is not null and (status = 'active' or status = 'cancelled' and lock_token is not null)
            group by queue, key`,
          );
          for (const row of rows) sampled.set(row.key, Math.max(sampled.get(row.key) ?? 0, row.n));
          await sleep(5);
        }
      })();
      for (let w = 0; w < 3; w++) await fastWorker(tm, { concurrency: 4 }).start();
      let cancels = 0;
      for (let i = 0; i < 30; i += 3) {
        await sleep(20);
        await tm.cancelJob(ids[(i * 37) % ids.length]);
        cancels++;
      }
      await waitFor(
        'every job to finish',
        async () => {
          const [row] = await rawQuery<{ n: number }>(
            tm,
            `select count(*)::int as n from "${tm.schema}".jobs where status not in ('completed', 'cancelled', 'failed')`,
          );
          return row.n === 0;
        },
        { timeoutMs: 90_000, intervalMs: 50 },
      );
      sampling = false;
      await sampler;
      const limit = (key: string) => (key.startsWith('sequence/') ? 1 : key === 'tenants/t0' ? 3 : 2);
      for (const [key, n] of most) assert.ok(n <= limit(key), `${key}: ${n} handlers at once`);
      for (const [key, n] of sampled)
        assert.ok(n <= limit(key), `${key}: ${n} running at once in the database`);
      // FIFO with retries: starts never go back to an earlier job, and all of them ran.
      for (let i = 1; i < sequence.length; i++)
        assert.ok(sequence[i] >= sequence[i - 1], `sequence: ${sequence}`);
      assert.deepEqual(
        [...new Set(sequence)],
        Array.from({ length: SEQUENCE_JOBS }, (_, n) => n),
      );
      const peaks = [...most].sort().map(([key, n]) => `${key}=${n}`);
      console.log(
        `flow-control stress [${kind}]: 3 workers, ${JOBS + SEQUENCE_JOBS} jobs, ${cancels} cancels; most at once: ${peaks.join(' ')}`,
      );
    });
  },
);
