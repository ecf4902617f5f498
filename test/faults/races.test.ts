import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import {
  InvalidJobStateError,
  JobInFlightError,
  JobNotFoundError,
  type Queryable,
  silentLogger,
  Tidemark,
} from '../../src/index.js';
import { retrySubtree } from '../../src/storage/sql/job-actions.js';
import { ANY_JOB } from '../../src/storage/sql/job-filter.js';
import { openOn, rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob, insertTree } from '../support/factory.js';
import { countRows, type Deferred, deferred, fastWorker } from '../support/jobs.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { findInconsistencies, sqlOf } from './support/consistency.js';
import { adminClient, describePg, dropFaultSchema, faultSchema, urlFor } from './support/pg.js';

/** A few milliseconds of random delay, so the two sides of a race start in varying order. */
const jitter = () => sleep(Math.random() * 4);

async function assertConsistent(tm: Tidemark): Promise<void> {
  assert.deepEqual(await findInconsistencies(sqlOf(tm), tm.schema), []);
}

async function recordsTable(tm: Tidemark): Promise<void> {
  await rawQuery(tm, `create table "${tm.schema}".race_records (job_id bigint not null)`);
}

function recordCompletion(tm: Tidemark, jobId: string) {
  return async (tx: Queryable) => {
    await tx.query(`insert into "${tm.schema}".race_records (job_id) values ($1::bigint)`, [jobId]);
  };
}

async function records(tm: Tidemark, id: string): Promise<number> {
  return countRows(tm, 'race_records', `job_id = ${Number(id)}`);
}

/** A deferred per key, created by whichever side asks first. */
function gates() {
  const map = new Map<string, Deferred>();
  return (key: string) => {
    let gate = map.get(key);
    if (!gate) {
      gate = deferred();
      map.set(key, gate);
    }
    return gate;
  };
}

/** Resolves with how each job's attempt ended, from the engine's events. */
function attemptEnds(tm: Tidemark) {
  const ends = gates();
  const outcome = new Map<string, string>();
  const settle = (kind: string) => (e: { id: string }) => {
    outcome.set(e.id, kind);
    ends(e.id).resolve();
  };
  tm.on('job:completed', settle('completed'));
  tm.on('job:lost', settle('lost'));
  tm.on('job:failed', settle('failed'));
  return {
    wait: async (id: string) => {
      await ends(id).promise;
      return outcome.get(id);
    },
  };
}

describeEachDriver('races', ({ kind, open }) => {
  test('cancelJob racing a completion: cancelled with nothing written, or completed exactly once', async (t) => {
    const tm = await open({ schema: faultSchema() });
    await recordsTable(tm);
    const started = gates();
    const release = gates();
    tm.createQueue<{ tx: boolean }>({
      name: 'race',
      handler: async (job, ctx) => {
        started(job.id).resolve();
        await release(job.id).promise;
        // Half complete inside a transaction of their own, half through the batched write.
        if (job.data.tx) ctx.completionTx(recordCompletion(tm, job.id));
        return { done: true };
      },
    });
    const ends = attemptEnds(tm);
    const worker = fastWorker(tm, { concurrency: 60 });
    await worker.start();
    const jobs = await tm.addJobs(
      Array.from({ length: 60 }, (_, i) => ({ queue: 'race', data: { tx: i % 2 === 0 } })),
    );
    const tally = { cancelled: 0, completed: 0 };
    await Promise.all(
      jobs.map(async ({ id }, i) => {
        await started(id).promise;
        const [cancel] = await Promise.allSettled([
          jitter().then(() => tm.cancelJob(id)),
          jitter().then(() => release(id).resolve()),
        ]);
        assert.equal(cancel.status, 'fulfilled');
        const end = await ends.wait(id);
        const job = await tm.getJob(id);
        assert.ok(job);
        if (job.status === 'cancelled') {
          tally.cancelled++;
          assert.equal(end, 'lost', `job ${id}: a cancelled job's attempt must write nothing`);
          assert.equal(job.output, null);
          assert.equal(await records(tm, id), 0);
        } else {
          tally.completed++;
          assert.equal(job.status, 'completed');
          assert.equal(end, 'completed');
          assert.deepEqual(job.output, { done: true });
          assert.equal(await records(tm, id), i % 2 === 0 ? 1 : 0);
        }
        // cancelJob reports the status the race ended in.
        assert.equal((cancel as PromiseFulfilledResult<{ status: string }>).value.status, job.status);
      }),
    );
    await worker.stop();
    // Every handler has returned: each cancelled job's lock is released (its key's slot free).
    await waitFor('the cancelled jobs to release their locks', async () => {
      const [row] = await rawQuery<{ n: number }>(
        tm,
        `select count(*)::int as n from "${tm.schema}".jobs where status = 'cancelled' and lock_token is not null`,
      );
      return row.n === 0;
    });
    await assertConsistent(tm);
    t.diagnostic(`${tally.cancelled} cancelled, ${tally.completed} completed`);
  });

  test('retryJob racing retention sweeps: each tree is retried whole or deleted whole', async (t) => {
    const tm = await open({ schema: faultSchema() });
    const retention = { failed: 10, completed: 10 };
    const tally = { retried: 0, deleted: 0 };
    for (let round = 0; round < 4; round++) {
      const trees: string[][] = [];
      for (let i = 0; i < 10; i++) {
        trees.push(
          await insertTree(tm, { queue: 'tree', status: 'failed', finishedAt: -20, retention }, [
            { queue: 'tree', status: 'completed', finishedAt: -20, retention },
            { queue: 'tree', status: 'failed', finishedAt: -20, retention },
          ]),
        );
      }
      const [sweeps, ...retries] = await Promise.all([
        Promise.all([
          jitter().then(() => tm.sweep({ batchSize: 3 })),
          jitter().then(() => tm.sweep({ batchSize: 2 })),
        ]),
        ...trees.map(([top]) =>
          jitter().then(() =>
            tm.retryJob(top).then(
              () => 'retried',
              (error) => error,
            ),
          ),
        ),
      ]);
      for (const sweep of sweeps) assert.equal(sweep.error, undefined);
      for (let i = 0; i < trees.length; i++) {
        const ids = trees[i];
        const rows = await rawQuery<{ id: string; status: string }>(
          tm,
          `select id::text as id, status from "${tm.schema}".jobs where id = any($1::bigint[]) order by id`,
          [ids],
        );
        if (retries[i] === 'retried') {
          tally.retried++;
          assert.deepEqual(
            rows.map((r) => r.status),
            ['pending', 'completed', 'pending'],
            `tree ${ids[0]} was retried, so it must be whole and reopened`,
          );
        } else {
          tally.deleted++;
          assert.ok(retries[i] instanceof JobNotFoundError, String(retries[i]));
          assert.deepEqual(rows, [], `tree ${ids[0]}: a refused retry leaves the tree deleted whole`);
        }
      }
      await assertConsistent(tm);
    }
    // The reopened trees are in flight: a later sweep keeps every member.
    const before = await countRows(tm, 'jobs');
    await tm.sweep();
    assert.equal(await countRows(tm, 'jobs'), before);
    t.diagnostic(`${tally.retried} retried, ${tally.deleted} deleted`);
  });

  test('deleteJob racing retryJob and a worker: deleted and never run, or refused and run exactly once', async (t) => {
    const tm = await open({ schema: faultSchema() });
    await recordsTable(tm);
    tm.createQueue({
      name: 'del',
      handler: async (job, ctx) => {
        ctx.completionTx(recordCompletion(tm, job.id));
        return 'ran';
      },
    });
    const lost: string[] = [];
    tm.on('job:lost', (e) => lost.push(e.id));
    const worker = fastWorker(tm, { concurrency: 20 });
    await worker.start();
    const ids = [];
    for (let i = 0; i < 60; i++) ids.push(await insertJob(tm, { queue: 'del', status: 'failed' }));
    const tally = { deleted: 0, refused: 0, ranThenDeleted: 0 };
    await Promise.all(
      ids.map(async (id) => {
        const [retry, del] = await Promise.allSettled([
          jitter().then(() => tm.retryJob(id)),
          jitter().then(() => tm.deleteJob(id)),
        ]);
        if (del.status === 'fulfilled') {
          const ran = await records(tm, id);
          assert.equal(await countRows(tm, 'jobs', `id = ${Number(id)}`), 0);
          if (retry.status === 'fulfilled') {
            // Allowed only when the retried run completed before the delete: a retried job
            // must never vanish without running.
            tally.ranThenDeleted++;
            assert.equal(ran, 1, `job ${id}: retried, then deleted without running`);
          } else {
            tally.deleted++;
            assert.ok(retry.reason instanceof JobNotFoundError, String(retry.reason));
            assert.equal(ran, 0);
          }
        } else {
          tally.refused++;
          assert.ok(del.reason instanceof JobInFlightError, String(del.reason));
          assert.equal(retry.status, 'fulfilled');
          await waitFor(`job ${id} to complete`, async () => (await tm.getJob(id))?.status === 'completed');
          assert.equal(await records(tm, id), 1);
        }
      }),
    );
    await worker.stop();
    assert.deepEqual(lost, [], 'no running job lost its row');
    await assertConsistent(tm);
    t.diagnostic(
      `${tally.deleted} deleted before the retry, ${tally.refused} refused, ${tally.ranThenDeleted} ran then deleted`,
    );
  });

  test('a signal racing its wait timeout: consumed and seen, or the wait timed out and saw nothing', async (t) => {
    const tm = await open({ schema: faultSchema() });
    tm.createQueue({
      name: 'wait',
      signals: { go: 1 },
      handler: async (_job, ctx) => ctx.waitForSignal('go', { timeoutSeconds: 1 }),
    });
    const worker = fastWorker(tm, { concurrency: 40 });
    await worker.start();
    const jobs = await tm.addJobs(Array.from({ length: 40 }, () => ({ queue: 'wait' })));
    const tally = { seen: 0, timedOut: 0, leftPending: 0 };
    await Promise.all(
      jobs.map(async ({ id }, i) => {
        // Under load the poll may first see the job after its one-second wait has timed out.
        // Forty pollers at the default 20 ms kept an embedded database too busy to run the jobs.
        await waitFor(
          `job ${id} to wait`,
          async () => ['waiting', 'completed'].includes((await tm.getJob(id))?.status ?? ''),
          { intervalMs: 100, timeoutMs: 30_000 },
        );
        await sleep(500 + Math.random() * 1_000);
        const delivery = await tm.signal(id, 'go', { n: i });
        const job = await waitFor(
          `job ${id} to finish`,
          async () => {
            const j = await tm.getJob(id);
            return j?.status === 'completed' ? j : null;
          },
          { intervalMs: 100, timeoutMs: 30_000 },
        );
        const signals = await rawQuery<{ consumed_at: Date | null; consumed_by: string | null }>(
          tm,
          `select consumed_at, consumed_by from "${tm.schema}".signals where job_id = $1::bigint`,
          [id],
        );
        const consumed = signals.filter((s) => s.consumed_at !== null);
        const output = job.output as { timedOut: boolean; payload: unknown };
        if (!output.timedOut) {
          tally.seen++;
          assert.deepEqual(delivery, { delivered: true });
          assert.deepEqual(output.payload, { n: i });
          assert.equal(consumed.length, 1);
          assert.equal(signals.length, 1);
        } else {
          tally.timedOut++;
          assert.equal(output.payload, null);
          assert.equal(consumed.length, 0, `job ${id} timed out but a signal was consumed`);
          if (delivery.delivered) {
            // Stored before the job finished, after its wait had timed out: kept as pending.
            tally.leftPending++;
            assert.equal(signals.length, 1);
          } else {
            assert.ok(['job-finished', 'wait-completed'].includes(delivery.reason), delivery.reason);
            assert.equal(signals.length, 0);
          }
        }
      }),
    );
    await worker.stop();
    await assertConsistent(tm);
    t.diagnostic(
      `${tally.seen} seen, ${tally.timedOut} timed out (${tally.leftPending} left a pending signal)`,
    );
  });

  test('two nodes sweeping at once delete each due tree exactly once and keep the rest', async () => {
    const tm = await open({ schema: faultSchema() });
    const other = await openOn(kind, { schema: tm.schema, migrate: false });
    try {
      const retention = { completed: 10, failed: 10 };
      const due: string[] = [];
      for (let i = 0; i < 60; i++) {
        due.push(
          ...(await insertTree(tm, { status: 'completed', finishedAt: -20, retention }, [
            { status: 'failed', finishedAt: -20, retention },
            { status: 'completed', finishedAt: -20, retention },
          ])),
        );
      }
      const kept: string[] = [];
      for (let i = 0; i < 20; i++)
        kept.push(await insertJob(tm, { status: 'completed', finishedAt: -5, retention }));
      for (let i = 0; i < 20; i++) {
        kept.push(
          await insertJob(tm, {
            status: 'completed',
            finishedAt: -20,
            retention,
            pins: [{ expiresIn: 3600 }],
          }),
        );
      }
      for (let i = 0; i < 10; i++) {
        kept.push(
          ...(await insertTree(tm, { status: 'completed', finishedAt: -20, retention }, [
            { status: 'pending' },
          ])),
        );
      }
      const [a, b] = await Promise.all([tm.sweep({ batchSize: 4 }), other.sweep({ batchSize: 5 })]);
      assert.equal(a.error, undefined);
      assert.equal(b.error, undefined);
      assert.equal(a.jobs + b.jobs, due.length, 'each due job deleted exactly once between the two sweeps');
      const left = await rawQuery<{ id: string }>(
        tm,
        `select id::text as id from "${tm.schema}".jobs order by id`,
      );
      assert.deepEqual(
        left.map((r) => r.id),
        [...kept].sort((x, y) => Number(x) - Number(y)),
      );
      // The periodic sweep's cluster turn: exactly one of two nodes asking at once wins.
      const turns = await Promise.all([
        engineOf(tm).storage.maintenance.takeTurn('race-turn', 3_600),
        engineOf(other).storage.maintenance.takeTurn('race-turn', 3_600),
      ]);
      assert.equal(turns.filter(Boolean).length, 1);
      await assertConsistent(tm);
    } finally {
      await other.close();
    }
  });

  test('20 concurrent adds with one idempotency key, uniqueFor window or unique key make one job', async () => {
    const tm = await open({ schema: faultSchema(), poolSize: 20 });
    const other = await openOn(kind, { schema: tm.schema, migrate: false, poolSize: 20 });
    try {
      for (const engine of [tm, other]) engine.createQueue({ name: 'idem' });
      const variants = [
        { idempotencyKey: { key: 'order-1', ttlSeconds: 60 } },
        { uniqueFor: 60 },
        { unique: true },
        { unique: 'one-key' },
      ];
      for (const [v, options] of variants.entries()) {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            jitter().then(() =>
              (i % 2 ? tm : other).addJob({ queue: 'idem', data: { variant: v }, ...options }),
            ),
          ),
        );
        const ids = new Set(results.map((r) => r.id));
        assert.equal(ids.size, 1, `variant ${v}: ${[...ids].join(', ')}`);
        assert.equal(results.filter((r) => !r.deduplicated).length, 1, `variant ${v}`);
        assert.equal(await countRows(tm, 'jobs', `data = '{"variant": ${v}}'::jsonb`), 1);
      }
      assert.equal(await countRows(tm, 'unique_locks'), 2);
      await assertConsistent(tm);
    } finally {
      await other.close();
    }
  });

  test('a retry is refused, not lost, when the job is deleted first', async () => {
    const tm = await open({ schema: faultSchema() });
    const id = await insertJob(tm, { queue: 'q', status: 'failed' });
    await tm.deleteJob(id);
    await assert.rejects(tm.retryJob(id), JobNotFoundError);
    const pending = await insertJob(tm, { queue: 'q', status: 'pending' });
    await assert.rejects(tm.retryJob(pending), InvalidJobStateError);
    await assertConsistent(tm);
  });
});

describePg('races: a retry committing while a delete waits on the row', () => {
  /**
   * Another node's retryJob holds the job's row (its statement has not committed yet) when
   * this node's delete, sweep or purge reaches the row. Once the retry commits the job is in
   * flight again, so whoever waited must keep it.
   */
  for (const [name, act] of [
    ['deleteJob', (tm: Tidemark, id: string) => tm.deleteJob(id)],
    ['deleteWorkflowSubtree', (tm: Tidemark, id: string) => tm.deleteWorkflowSubtree(id)],
    ['sweep', (tm: Tidemark) => tm.sweep()],
    ['removeJobs', (tm: Tidemark) => tm.removeJobs({})],
  ] as const) {
    test(`${name} keeps a job that a concurrent retry reopened`, async () => {
      const app = `tm_faults_retrydel_${randomBytes(3).toString('hex')}`;
      const admin = await adminClient(app);
      const tm = await Tidemark.open({ database: urlFor(app), schema: faultSchema(), logger: silentLogger });
      try {
        const id = await insertJob(tm, {
          queue: 'q',
          status: 'failed',
          finishedAt: -20,
          retention: { failed: 10 },
        });
        await admin.query('begin');
        await admin.query(
          retrySubtree.text(tm.schema),
          retrySubtree.values({ ...ANY_JOB, id, channel: 'unused' }),
        );
        let settled = false;
        const outcome = act(tm, id).then(
          (value) => ({ value }),
          (error) => ({ error }),
        );
        void outcome.finally(() => {
          settled = true;
        });
        // Deletes wait for the row; sweeps and purges skip locked rows and finish at once.
        await waitFor(`${name} to wait for the retry's row lock or to finish`, async () => {
          const { rows } = await admin.query(
            `select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'`,
            [app],
          );
          return settled || rows.length > 0;
        });
        await admin.query('commit');
        const result = await outcome;
        const job = await tm.getJob(id);
        assert.equal(
          job?.status,
          'pending',
          `${name} deleted a job that was retried: ${JSON.stringify(result)}`,
        );
        if (name.startsWith('delete'))
          assert.ok('error' in result && result.error instanceof JobInFlightError);
        await assertConsistent(tm);
      } finally {
        await admin.query('rollback').catch(() => {});
        await tm.close();
        await dropFaultSchema(admin, tm.schema);
        await admin.end();
      }
    });
  }
});
