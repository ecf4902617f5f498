/**
 * Tidemark through PgBouncer in transaction pooling mode. This file runs in a lane of its own
 * (scripts/pgbouncer-lane.sh, called from .ci/run), which starts a PgBouncer in front of the
 * test PostgreSQL and names it in TIDEMARK_TEST_PGBOUNCER_URL; `npm test` does not collect
 * test/pooler (see scripts/run-tests.mjs). Run on its own without that variable, it fails.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ResultTimeoutError, Tidemark, type Worker } from '../../src/index.js';
import { dropSchema, freshSchema, PG_URL } from '../support/databases.js';
import { recordingLogger, type Said } from '../support/recording-logger.js';
import { waitFor } from '../support/wait-for.js';

const POOLER_URL = process.env.TIDEMARK_TEST_PGBOUNCER_URL;
if (!POOLER_URL) {
  throw new Error(
    'test/pooler needs a PgBouncer in transaction mode named in TIDEMARK_TEST_PGBOUNCER_URL: ' +
      'run it with `bash scripts/pgbouncer-lane.sh`, which starts one',
  );
}
const pooler: string = POOLER_URL;

const lostListen = (said: Said[]) =>
  said.filter((s) => s.level === 'warn' && s.message.includes('LISTEN does not work'));

/** Milliseconds from each enqueue to its handler's start, one job at a time, on an idle worker. */
async function pickupLatencies(tm: Tidemark, queue: string, started: Map<string, number>, n: number) {
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const enqueued = performance.now();
    const { id } = await tm.addJob({ queue, data: { i } });
    await tm.result(id, { timeoutSeconds: 30 });
    latencies.push((started.get(id) ?? Number.NaN) - enqueued);
  }
  return latencies.sort((a, b) => a - b);
}

function figures(latencies: number[]): string {
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms, max ${at(1).toFixed(1)} ms over ${latencies.length} jobs`;
}

describe('through PgBouncer in transaction mode, preparedStatements: false', () => {
  const said: Said[] = [];
  const started = new Map<string, number>();
  let tm: Tidemark;
  let worker: Worker;

  before(async () => {
    tm = await Tidemark.open({
      database: pooler,
      schema: freshSchema(),
      preparedStatements: false,
      logger: recordingLogger(said),
    });
    tm.createQueue({
      name: 'work',
      handler: async (job) => {
        started.set(job.id, performance.now());
        return { doubled: (job.data as { i: number }).i * 2 };
      },
    });
    tm.createQueue({ name: 'fired', handler: async () => 'fired', retention: { completed: 1 } });
    tm.createQueue({
      name: 'approval',
      signals: { approve: 1 },
      handler: async (job, ctx) => {
        const prepared = await ctx.step('prepare', () => `invoice ${(job.data as { n: number }).n}`);
        const decision = await ctx.waitForSignal('approve');
        return `${prepared} approved by ${(decision.payload as { by: string }).by}`;
      },
    });
    // The default poll (1 s): the fallback replaces it with 0.25 s once the probe fails.
    worker = tm.worker({ concurrency: 4, tickIntervalSeconds: 0.2, sweep: false });
    await worker.start();
  });

  after(async () => {
    await worker?.stop();
    await tm?.close();
    if (tm) await dropSchema('pg', tm.schema);
  });

  test('the probe finds LISTEN lost: one warning that says what to do, and the fallback poll', async () => {
    await waitFor('the lost-LISTEN warning', () => lostListen(said).length > 0);
    const [warning, ...again] = lostListen(said);
    assert.equal(again.length, 0);
    assert.match(warning.message, /listenDatabase/);
    assert.match(warning.message, /session pooling/);
    assert.deepEqual(warning.fields, { pollIntervalSeconds: 0.25 });
  });

  test('enqueue, work and results; pickup on the fallback poll', async (t) => {
    const ids = await tm.addJobs(Array.from({ length: 20 }, (_, i) => ({ queue: 'work', data: { i } })));
    const results = await Promise.all(ids.map(({ id }) => tm.result(id, { timeoutSeconds: 30 })));
    assert.deepEqual(
      results,
      ids.map((_, i) => ({ doubled: i * 2 })),
    );
    const latencies = await pickupLatencies(tm, 'work', started, 20);
    t.diagnostic(`pickup latency through PgBouncer, fallback poll: ${figures(latencies)}`);
  });

  test('a schedule fires', async () => {
    await tm.schedule({ name: 'every-second', cron: '*/1 * * * * *', queue: 'fired' });
    await waitFor('a fire of the schedule', async () => {
      const [schedule] = await tm.listSchedules();
      return schedule?.lastFireAt !== null;
    });
    await tm.unschedule('every-second');
  });

  test('a workflow waits for a signal and completes', async () => {
    const { id } = await tm.addJob({ queue: 'approval', data: { n: 7 } });
    await waitFor('the workflow to wait', async () => (await tm.getJob(id))?.status === 'waiting');
    assert.deepEqual(await tm.signal(id, 'approve', { by: 'ana' }), { delivered: true });
    assert.equal(await tm.result(id, { timeoutSeconds: 30 }), 'invoice 7 approved by ana');
  });

  test('tm.sweep() deletes finished jobs once their window has passed', async () => {
    const ids = await tm.addJobs([1, 2, 3].map(() => ({ queue: 'fired' })));
    for (const { id } of ids) await tm.result(id, { timeoutSeconds: 30 });
    // Their window is a second: sweep until it has passed and they are gone.
    let deleted = 0;
    await waitFor('the sweep to delete the three', async () => {
      const outcome = await tm.sweep();
      assert.ok('jobs' in outcome && outcome.error === undefined, JSON.stringify(outcome));
      deleted += outcome.jobs;
      return deleted >= 3;
    });
    for (const { id } of ids) assert.equal(await tm.getJob(id), null);
  });
});

describe('through PgBouncer with listenDatabase: a direct connection for LISTEN', () => {
  test('the probe passes, nothing is said, and workers wake on notifications', async (t) => {
    const said: Said[] = [];
    const started = new Map<string, number>();
    const tm = await Tidemark.open({
      database: pooler,
      listenDatabase: PG_URL,
      schema: freshSchema(),
      preparedStatements: false,
      logger: recordingLogger(said),
    });
    // A poll of an hour: a job is picked up before its result times out only on a notification.
    const worker = tm.worker({ pollIntervalSeconds: 3_600, sweep: false });
    try {
      tm.createQueue({
        name: 'work',
        handler: async (job) => {
          started.set(job.id, performance.now());
          return 'done';
        },
      });
      await worker.start();
      const latencies = await pickupLatencies(tm, 'work', started, 20);
      t.diagnostic(`pickup latency through PgBouncer, LISTEN direct: ${figures(latencies)}`);
      assert.deepEqual(lostListen(said), []);
    } finally {
      await worker.stop();
      await tm.close();
      await dropSchema('pg', tm.schema);
    }
  });
});

describe('through PgBouncer in transaction mode with prepared statements (the default)', () => {
  // What a transaction-mode pooler does to named statements: the name is missing on the next
  // server connection (26000) or another client prepared it there (42P05). The calls fail,
  // each as a rejected promise of its own; nothing escapes to crash the process.
  const POOLER_ERRORS = ['42P05', '26000'];
  const codeOf = (error: unknown) => (error as { code?: string } | null)?.code;

  test('calls reject with the database error, one by one, and the process goes on', async () => {
    const schema = freshSchema();
    const opened = await Tidemark.open({ database: pooler, schema, logger: recordingLogger([]) }).then(
      (tm) => ({ tm }),
      (error: unknown) => ({ error }),
    );
    try {
      if ('error' in opened) {
        assert.ok(POOLER_ERRORS.includes(codeOf(opened.error) ?? ''), String(opened.error));
        return;
      }
      const { tm } = opened;
      tm.createQueue({ name: 'q' });
      const refused: unknown[] = [];
      // Calls at once, so that the pool's connections and PgBouncer's server connections mix.
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          try {
            const { id } = await tm.addJob({ queue: 'q', data: { i } });
            await tm.result(id, { timeoutSeconds: 0.05 });
          } catch (error) {
            refused.push(error);
          }
        }),
      );
      // Whether a call meets a clash depends on how PgBouncer pairs connections, so the test
      // does not require one; what it requires is that each call settled on its own, and that
      // each refusal is the pooler's error or the result's own time-out, never anything else.
      const unexpected = refused.filter(
        (error) => !POOLER_ERRORS.includes(codeOf(error) ?? '') && !(error instanceof ResultTimeoutError),
      );
      assert.deepEqual(unexpected.map(String), []);
      await tm.close();
    } finally {
      await dropSchema('pg', schema);
    }
  });
});
