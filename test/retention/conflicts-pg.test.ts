import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import pg from 'pg';
import { HoldsChangingError, silentLogger, type Tidemark } from '../../src/index.js';
import { dropSchema, openOn, PG_URL, rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { insertJob } from '../support/factory.js';

/**
 * Conflicts that need a second connection, so PostgreSQL only: applyRetention meeting a
 * worker that finishes a child and wakes its parent (the two lock orders cross), and a bulk
 * removal meeting holds that change under every batch. Each call either succeeds or fails
 * with a typed error, never PostgreSQL's own.
 */
if (TEST_DRIVERS.includes('pg')) {
  describe('typed outcomes of conflicts with concurrent work [pg]', () => {
    const opened: Tidemark[] = [];
    const clients: pg.Client[] = [];
    afterEach(async () => {
      for (const client of clients.splice(0)) await client.end().catch(() => {});
      for (const tm of opened.splice(0)) {
        await tm.close();
        await dropSchema('pg', tm.schema);
      }
    });

    async function setUp() {
      const tm = await openOn('pg', { logger: silentLogger });
      opened.push(tm);
      tm.createQueue({ name: 'q' });
      const client = new pg.Client({ connectionString: PG_URL });
      clients.push(client);
      await client.connect();
      const [{ pid }] = (await client.query('select pg_backend_pid() as pid')).rows;
      return { tm, client, pid: Number(pid) };
    }

    /** Resolves true once `promise` settled, false once a statement waits on backend `pid`. */
    async function settledOrBlocked(tm: Tidemark, pid: number, settled: () => boolean): Promise<boolean> {
      for (;;) {
        if (settled()) return true;
        const [row] = await rawQuery<{ n: number }>(
          tm,
          'select count(*)::int as n from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))',
          [pid],
        );
        if (row.n > 0) return settled();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }

    function track<T>(promise: Promise<T>) {
      const state = { settled: false };
      const outcome = promise.then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      void outcome.then(() => {
        state.settled = true;
      });
      return { outcome, settled: () => state.settled };
    }

    test('applyRetention beside a worker finishing a child and waking its parent: no 40P01, the policy applied whole', async () => {
      const { tm, client, pid } = await setUp();
      const first = await insertJob(tm, { queue: 'q', status: 'completed' });
      const second = await insertJob(tm, { queue: 'q', status: 'completed' });
      const parent = await insertJob(tm, { queue: 'q', status: 'waiting' });
      const child = await insertJob(tm, { queue: 'q', status: 'active', parentId: parent });
      const s = `"${tm.schema}"`;
      // The worker: the child's outcome first (its row locked) ...
      await client.query('begin');
      await client.query(`update ${s}.jobs set status = 'completed', finished_at = now() where id = $1`, [
        child,
      ]);
      const apply = track(tm.applyRetention({ queue: 'q', policy: { completed: 3_600 }, batchSize: 2 }));
      // ... and, once the apply's second batch holds the parent and waits for the child, the parent's wake-up.
      assert.equal(await settledOrBlocked(tm, pid, apply.settled), false, 'the apply never met the worker');
      // PostgreSQL aborts whichever side's deadlock check finds the cycle: the apply's, one
      // second after it began to wait, unless a loaded machine delays this statement past that
      // check; then this side's. A worker aborted so writes its outcome again later.
      const wake = await client.query(`update ${s}.jobs set status = 'pending' where id = $1`, [parent]).then(
        () => null,
        (error: unknown) => error,
      );
      if (wake === null) await client.query('commit');
      else {
        assert.equal((wake as { code?: unknown }).code, '40P01', `the wake-up failed: ${String(wake)}`);
        await client.query('rollback');
      }
      const outcome = await apply.outcome;
      assert.ok(outcome.ok, `applyRetention failed: ${!outcome.ok && String(outcome.error)}`);
      assert.equal(outcome.value.jobs, 4);
      const rows = await rawQuery<{ id: string; retention: unknown }>(
        tm,
        `select id::text as id, retention from ${s}.jobs order by id`,
      );
      assert.deepEqual(
        rows,
        [first, second, parent, child].map((id) => ({ id, retention: { completed: 3_600 } })),
        'the policy was applied to every job',
      );
    });

    test('removeJobs while the holds change under every batch: it succeeds or throws HoldsChangingError', async () => {
      const { tm, client, pid } = await setUp();
      for (let i = 0; i < 3; i++) await insertJob(tm, { queue: 'q', status: 'completed', finishedAt: -120 });
      await tm.pauseRetention({ reason: 'row' });
      await tm.resumeRetention();
      // Each time a batch waits for the control row, a hold change commits and the next one starts at once.
      const change = `update "${tm.schema}".retention_control set version = version + 1 where id = 1`;
      await client.query(`begin; ${change}`);
      const purge = track(tm.removeJobs({ olderThanSeconds: 60, batchSize: 10 }));
      for (let changes = 0; changes < 200; changes++) {
        if (await settledOrBlocked(tm, pid, purge.settled)) break;
        await client.query(`commit; begin; ${change}`);
      }
      await client.query('commit');
      const outcome = await purge.outcome;
      if (outcome.ok) assert.equal(outcome.value, 3);
      else assert.ok(outcome.error instanceof HoldsChangingError, `untyped: ${String(outcome.error)}`);
    });
  });
}
