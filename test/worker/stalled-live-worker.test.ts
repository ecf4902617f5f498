import assert from 'node:assert/strict';
import { test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import { silentLogger, type Tidemark } from '../../src/index.js';
import { DatabaseContact } from '../../src/maintenance/reconnect-grace.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';
import { waitFor } from '../support/wait-for.js';

/** A worker row that beats every 10 s (a 30-s lock), as `register` writes it. */
async function register(tm: Tidemark, id: string): Promise<void> {
  await engineOf(tm).storage.workers.registerWorker({
    id,
    instance: `${id}-instance`,
    host: 'test',
    pid: 1,
    queues: null,
    concurrency: 1,
    settings: { sweep: false, uniqueLockSweep: false, tickIntervalSeconds: 5 },
    heartbeatSeconds: 10,
    startedAt: null,
    replaces: null,
  });
}

/** One job claimed by `worker`, its lock lapsed `lapsedAgo` seconds ago; returns its id. */
async function lapsedJob(tm: Tidemark, worker: string, lapsedAgo: number): Promise<string> {
  const { id } = await tm.addJob({ queue: 'q', data: worker });
  const [claimed] = await engineOf(tm).storage.attempts.claimJobs(['q'], 1, worker, 30);
  assert.equal(claimed?.job.id, id);
  await rawQuery(
    tm,
    `update "${tm.schema}".jobs set locked_until = now() - $2 * interval '1 second' where id = $1`,
    [id, lapsedAgo],
  );
  return id;
}

async function beatAgo(tm: Tidemark, worker: string, seconds: number): Promise<void> {
  await rawQuery(
    tm,
    `update "${tm.schema}".workers set heartbeat_at = now() - $2 * interval '1 second' where id = $1`,
    [worker, seconds],
  );
}

describeEachDriver(
  'stalled recovery spares the jobs of a worker beating again after an outage',
  ({ open }) => {
    test('a lapsed job is spared only while its own live worker has beaten since the lapse, for at most a lock period', async () => {
      const tm = await open({ logger: silentLogger });
      tm.createQueue({ name: 'q' });
      const names = ['back', 'dead', 'beats-on', 'died-after', 'restarted', 'unregistered'];
      for (const name of names.slice(0, -1)) await register(tm, name);
      // One at a time: each claim must take the job just added.
      const ids: Record<string, string> = {};
      for (const n of names) ids[n] = await lapsedJob(tm, n, n === 'beats-on' ? 40 : 5);
      // back: beat just now, after its lock lapsed 5 s ago (the database is back, the worker too).
      // dead: last beat with its last extension, a lock period before the lapse.
      await beatAgo(tm, 'dead', 35);
      // beats-on: beats now, but its lock lapsed 40 s ago, over a lock period (30 s): it dropped the job.
      // died-after: beat after the lapse, then nothing for 25 s (over two beats).
      await rawQuery(
        tm,
        `update "${tm.schema}".jobs set locked_until = now() - interval '30 seconds' where id = $1`,
        [ids['died-after']],
      );
      await beatAgo(tm, 'died-after', 25);
      // restarted: the same id registered by a later process than the one that claimed the job.
      await rawQuery(
        tm,
        `update "${tm.schema}".jobs set started_at = started_at - interval '1 hour' where id = $1`,
        [ids.restarted],
      );

      assert.equal(await engineOf(tm).storage.maintenance.recoverStalled(100), names.length - 1);
      const statuses = Object.fromEntries(
        await Promise.all(names.map(async (n) => [n, (await tm.getJob(ids[n]))?.status])),
      );
      assert.deepEqual(statuses, {
        back: 'active',
        dead: 'retry',
        'beats-on': 'retry',
        'died-after': 'retry',
        restarted: 'retry',
        unregistered: 'retry',
      });

      // The live worker that comes back extends its lock; had it not, a lock period after the
      // lapse its job goes too. It beats now: its beat from registering, seconds old on a
      // loaded machine, would still fall inside the lapse's last window and spare the job.
      await beatAgo(tm, 'back', 0);
      await rawQuery(
        tm,
        `update "${tm.schema}".jobs set locked_until = now() - interval '31 seconds' where id = $1`,
        [ids.back],
      );
      assert.equal(await engineOf(tm).storage.maintenance.recoverStalled(100), 1);
      assert.equal((await tm.getJob(ids.back))?.status, 'retry');
    });

    test("a worker's own tick recovers none of its jobs while its beats fail; once one lands, the held outcome is written", async () => {
      const tm = await open({ logger: silentLogger });
      let runs = 0;
      tm.createQueue({ name: 'q', maxAttempts: 1, handler: () => ++runs });
      // A first job through a long-lock worker: a fresh PGlite plans its first statements slowly.
      const warm = fastWorker(tm);
      await warm.start();
      await waitForStatus(tm, (await tm.addJob({ queue: 'q' })).id, 'completed');
      await warm.stop();

      // Beats and finishing writes fail (a statement timeout, not a lost connection, so this
      // process has no outage to wait out); the tick still reaches the database.
      const storage = engineOf(tm).storage;
      const real = {
        attempts: {
          extendLocks: storage.attempts.extendLocks,
          finishAttempts: storage.attempts.finishAttempts,
        },
        workers: { beatWorker: storage.workers.beatWorker },
      };
      const timeout = async (): Promise<never> => {
        throw Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
      };
      Object.assign(storage.attempts, { extendLocks: timeout, finishAttempts: timeout });
      Object.assign(storage.workers, { beatWorker: timeout });
      let ticks = 0;
      let recovered = 0;
      tm.on('maintenance:tick', (e) => {
        ticks++;
        recovered += e.stalled;
      });
      const worker = fastWorker(tm, { lockSeconds: 1 });
      await worker.start();
      const { id } = await tm.addJob({ queue: 'q' });
      await waitFor('the handler to have run', () => runs === 2);
      const lapsed = async () =>
        (
          await rawQuery<{ lapsed: boolean }>(
            tm,
            `select coalesce(locked_until < now(), true) as lapsed from "${tm.schema}".jobs where id = $1`,
            [id],
          )
        )[0]?.lapsed;
      // (or to be gone: recovered, on code that takes a live worker's job)
      await waitFor('its lock to lapse', lapsed, { timeoutMs: 10_000 });
      const since = ticks;
      await waitFor('two ticks after the lapse', () => ticks >= since + 2, { timeoutMs: 15_000 });
      assert.equal((await tm.getJob(id))?.status, 'active', 'not recovered by its own worker');

      Object.assign(storage.attempts, real.attempts);
      Object.assign(storage.workers, real.workers);
      const job = await waitForStatus(tm, id, 'completed');
      assert.deepEqual([job.attempts, job.output, runs, recovered], [1, 2, 2, 0]);
      await worker.stop();
    });
  },
);

test('a process that reaches the database again recovers nothing for the grace, then is steady', () => {
  let now = 1_000_000;
  const contact = new DatabaseContact(5, () => now);
  let back = 0;
  contact.whenBack(() => back++);
  assert.equal(contact.steady(), true, 'never failed');
  contact.failed();
  assert.equal(contact.steady(), false, 'unreachable');
  now += 60_000;
  contact.answered();
  assert.equal(contact.steady(), false, 'just back');
  now += 4_999;
  contact.answered();
  assert.equal(contact.steady(), false, 'answering, within the grace');
  now += 1;
  assert.equal(contact.steady(), true, 'answering for the whole grace');
  assert.equal(back, 1, 'told once, when the database answered again');
});
