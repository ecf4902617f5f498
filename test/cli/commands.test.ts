import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engineOf } from '../../src/engine-handle.js';
import type { Tidemark } from '../../src/index.js';
import { latestVersion, migrations } from '../../src/storage/migrations/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { captureIo, cliDatabase, runCli, withEngine } from '../support/cli.js';
import { ONE_DRIVER, TEST_DRIVERS } from '../support/databases.js';

/** The jobs the tests below act on, by queue; each test has queues of its own. */
interface Seeded {
  /** purge.q: three cancelled, one pending. */
  purge: string[];
  /** sweep.q: two cancelled, past their purge time. */
  sweep: string[];
  /** act.q: one pending. */
  act: string;
  /** now.q: two pending, due in an hour. */
  now: string[];
}

/**
 * What every test below starts from, made in one open before them: on an embedded folder an
 * open costs most of a second, far more than the command it is made for. Only pending and
 * cancelled jobs, so the stats table keeps those two status columns alone.
 */
async function seed(tm: Tidemark): Promise<Seeded> {
  for (const name of ['stats.mail', 'stats.idle', 'purge.q', 'act.q', 'ops.q', 'now.q']) {
    tm.createQueue({ name });
  }
  tm.createQueue({ name: 'sweep.q', retention: { ttlSeconds: 60 } });

  const mail = await tm.addJobs([1, 2, 3, 4].map((i) => ({ queue: 'stats.mail', data: { i } })));
  await tm.cancelJob(mail[0].id);
  await tm.pauseQueue('stats.idle');

  const { storage } = engineOf(tm);
  const settings = { sweep: false as const, uniqueLockSweep: false as const, tickIntervalSeconds: 5 };
  const base = {
    host: 'node-a',
    pid: 4242,
    concurrency: 8,
    heartbeatSeconds: 20,
    startedAt: null,
    instance: 'cli-test',
    replaces: null,
  };
  await storage.workers.registerWorker({
    ...base,
    id: 'cli.sweeper',
    queues: ['mail'],
    settings: { ...settings, sweep: { intervalSeconds: 60, batchSize: 500 } },
  });
  await storage.workers.registerWorker({ ...base, id: 'cli.dead', queues: null, settings });
  await runnerOf(storage).driver.query(
    `update "${tm.schema}".workers set heartbeat_at = now() - interval '5 minutes' where id = 'cli.dead'`,
  );

  const purge = await tm.addJobs([1, 2, 3, 4].map((i) => ({ queue: 'purge.q', data: { i } })));
  for (const job of purge.slice(0, 3)) await tm.cancelJob(job.id);

  const sweep = await tm.addJobs([1, 2].map((i) => ({ queue: 'sweep.q', data: { i } })));
  for (const job of sweep) await tm.cancelJob(job.id);
  // Age the rows instead of waiting out the window.
  await runnerOf(storage).driver.query(
    `update "${tm.schema}".jobs set finished_at = now() - interval '2 minutes', purge_after = now() - interval '1 minute' where queue = 'sweep.q'`,
  );

  const { id: act } = await tm.addJob({ queue: 'act.q', data: {} });

  const now = await tm.addJobs([
    { queue: 'now.q', data: {}, delaySeconds: 3_600 },
    { queue: 'now.q', data: {}, delaySeconds: 3_600 },
  ]);

  return {
    purge: purge.map((job) => job.id),
    sweep: sweep.map((job) => job.id),
    act,
    now: now.map((job) => job.id),
  };
}

// Each command is a thin layer over the API, whose own tests run on both drivers; an embedded
// folder's open costs most of a second of CPU, so the folder's own path is proven once below.
for (const kind of ONE_DRIVER) {
  describe(`tidemark CLI commands [${kind}]`, () => {
    const db = cliDatabase(kind);
    after(() => db.dispose());
    let seeded: Seeded;

    before(async () => {
      await db.seed();
      const { code, io } = await runCli(['migrate', ...db.args]);
      assert.equal(code, 0, io.err());
      const versions = migrations.map((m) => m.version);
      assert.match(
        io.out(),
        new RegExp(
          `Schema ${db.schema}: applied migrations ${versions.join(', ')}; now at version ${latestVersion}`,
        ),
      );
      seeded = await withEngine(db.open, seed);
    });

    test('migrate again reports the schema up to date', async () => {
      const { code, io } = await runCli(['migrate', ...db.args]);
      assert.equal(code, 0);
      assert.match(io.out(), new RegExp(`is up to date \\(version ${latestVersion}\\)`));
    });

    test('stats shows counts per queue and status, and table sizes; --json is parseable', async () => {
      const { code, io } = await runCli(['stats', ...db.args]);
      assert.equal(code, 0, io.err());
      const mail = io
        .out()
        .split('\n')
        .find((line) => line.startsWith('stats.mail'));
      assert.ok(mail, io.out());
      assert.match(io.out(), /queue\s+pending\s+cancelled\s+ready\s+scheduled\s+latency\s+queue paused/);
      assert.doesNotMatch(
        io.out(),
        /\spaused\s+queue paused/,
        'the queue flag is not a second paused column',
      );
      // Three pending jobs due now: all ready, none scheduled, the oldest due for some time.
      assert.match(mail, /^stats\.mail\s+3\s+1\s+3\s+0\s+\d+(\.\d+)? m?s\s*$/);
      assert.match(io.out(), /^stats\.idle\s+0\s+0\s+0\s+0\s+-\s+yes$/m);
      assert.match(io.out(), /^jobs\s+\d/m);
      const json = await runCli(['stats', '--json', '--exact', ...db.args]);
      const doc = JSON.parse(json.io.out());
      const queue = doc.queues.find((q: { name: string }) => q.name === 'stats.mail');
      assert.deepEqual(queue.counts, {
        cancelled: { n: 1, exact: true, kind: 'exact' },
        pending: { n: 3, exact: true, kind: 'exact' },
      });
      assert.deepEqual(
        [queue.ready, queue.scheduled],
        [
          { n: 3, exact: true, kind: 'exact' },
          { n: 0, exact: true, kind: 'exact' },
        ],
      );
      assert.ok(queue.latencySeconds >= 0);
      assert.ok(
        doc.tables.some((t: { name: string; totalBytes: number }) => t.name === 'jobs' && t.totalBytes > 0),
      );
    });

    test('workers lists the registered workers, live and gone, with their sweeps; --json too', async () => {
      const { code, io } = await runCli(['workers', ...db.args]);
      assert.equal(code, 0, io.err());
      assert.match(
        io.out(),
        /worker\s+host\s+pid\s+queues\s+running\s+concurrency\s+started\s+last beat\s+state/,
      );
      assert.match(
        io.out(),
        /^cli\.sweeper\s+node-a\s+4242\s+mail\s+0\s+8\s+.*\s+live\s+every 1 min \(60 s\), batch 500$/m,
      );
      assert.match(io.out(), /^cli\.dead\s+node-a\s+4242\s+\(all\)\s+.*5 min ago\s+gone\s+off$/m);
      assert.match(io.out(), /1 live, 1 gone\. 1 of 1 live workers sweep every 1 min \(60 s\)\./);
      const json = JSON.parse((await runCli(['workers', '--json', ...db.args])).io.out());
      assert.deepEqual(json.workers.map((w: { id: string; gone: boolean }) => [w.id, w.gone]).sort(), [
        ['cli.dead', true],
        ['cli.sweeper', false],
      ]);
    });

    test('purge counts with --dry-run first, then deletes finished jobs only, with a progress line', async () => {
      const ids = seeded.purge;
      const args = [
        'purge',
        '--queue',
        'purge.q',
        '--status',
        'cancelled,failed',
        '--older-than',
        '0',
        ...db.args,
      ];
      const dry = await runCli([...args, '--dry-run']);
      assert.equal(dry.code, 0, dry.io.err());
      assert.match(dry.io.out(), /Dry run: 3 cancelled\/failed jobs of queue purge\.q .* would be deleted/);
      const io = captureIo({}, true);
      const wet = await runCli([...args, '--batch-size', '1'], io);
      assert.equal(wet.code, 0, io.err());
      assert.match(io.out(), /Deleted 3 cancelled\/failed jobs of queue purge\.q/);
      assert.match(io.err(), /\rdeleted 1 jobs…\rdeleted 2 jobs…\rdeleted 3 jobs…/);
      await withEngine(db.open, async (tm) => {
        for (const id of ids.slice(0, 3)) assert.equal(await tm.getJob(id), null);
        assert.equal((await tm.getJob(ids[3]))?.status, 'pending', 'the in-flight job stays');
      });
    });

    test('sweep --dry-run previews and deletes nothing; sweep deletes due jobs', async () => {
      const ids = seeded.sweep;
      const dry = await runCli(['sweep', '--dry-run', ...db.args]);
      assert.equal(dry.code, 0, dry.io.err());
      assert.match(dry.io.out(), /Dry run: a sweep now would delete 2 jobs/);
      assert.match(dry.io.out(), /^sweep\.q\s+cancelled\s+2$/m);
      await withEngine(db.open, async (tm) => assert.ok(await tm.getJob(ids[0]), 'dry run deleted nothing'));
      const wet = await runCli(['sweep', ...db.args]);
      assert.equal(wet.code, 0, wet.io.err());
      assert.match(wet.io.out(), /^Deleted 2 jobs/);
      await withEngine(db.open, async (tm) => assert.equal(await tm.getJob(ids[0]), null));
    });

    test('retry and cancel go through the API and print the transition; errors exit 1', async () => {
      const id = seeded.act;
      const cancel = await runCli(['cancel', id, ...db.args]);
      assert.equal(cancel.code, 0, cancel.io.err());
      assert.equal(cancel.io.out(), `Job ${id} (act.q): pending → cancelled\n`);
      const retry = await runCli(['retry', id, ...db.args]);
      assert.equal(retry.code, 0, retry.io.err());
      assert.equal(retry.io.out(), `Job ${id} (act.q): cancelled → pending\n`);
      const again = await runCli(['retry', id, ...db.args]);
      assert.equal(again.code, 1);
      assert.match(
        again.io.err(),
        new RegExp(
          `tidemark retry: job ${id} is pending; only finished or retry-waiting jobs can be retried`,
        ),
      );
      const missing = await runCli(['cancel', '987654321', ...db.args]);
      assert.equal(missing.code, 1);
      assert.match(missing.io.err(), /job 987654321 not found/);
    });

    test('add, job, signal and queue pause|resume act through the API; a repeated option exits 2', async () => {
      const added = await runCli([
        'add',
        'ops.q',
        '--data',
        '{"to":"a@b.c"}',
        '--options',
        '{"delaySeconds":60,"tags":["ops"]}',
        ...db.args,
      ]);
      assert.equal(added.code, 0, added.io.err());
      const id = added.io.out().match(/^Added: job (\d+) \(ops\.q\)\.$/m)?.[1];
      assert.ok(id, added.io.out());
      const shown = await runCli(['job', id, ...db.args]);
      assert.equal(shown.code, 0, shown.io.err());
      assert.match(shown.io.out(), new RegExp(`^Job ${id} \\(ops\\.q\\): pending, attempt 0 of \\d+$`, 'm'));
      assert.match(shown.io.out(), /^ {2}data {5}\{"to":"a@b\.c"\}$/m);
      assert.match(shown.io.out(), /^ {2}tags {5}ops$/m);
      const json = await runCli(['job', id, '--json', ...db.args]);
      assert.equal(JSON.parse(json.io.out()).job.id, id);
      assert.deepEqual(JSON.parse(json.io.out()).history, { attempts: [], events: [], dropped: 0 });
      assert.match(shown.io.out(), /^ {2}0 run history event\(s\), 0 checkpoint\(s\)/m);
      assert.equal((await runCli(['job', '987654321', ...db.args])).code, 1);

      const bad = await runCli(['add', 'ops.q', '--options', '{"priority":"high"}', ...db.args]);
      assert.equal(bad.code, 1);
      assert.match(bad.io.err(), /invalid option 'priority'/);
      assert.equal((await runCli(['add', 'ops.q', '--data', '{oops', ...db.args])).code, 2);

      const signalled = await runCli(['signal', id, 'approved', '--payload', '{"by":"ops"}', ...db.args]);
      assert.equal(signalled.code, 0, signalled.io.err());
      assert.equal(typeof JSON.parse(signalled.io.out()), 'object');

      assert.equal((await runCli(['queue', 'pause', 'ops.q', ...db.args])).io.out(), 'Paused queue ops.q.\n');
      await withEngine(db.open, async (tm) => {
        assert.equal((await tm.listQueues()).find((q) => q.name === 'ops.q')?.paused, true);
      });
      assert.equal((await runCli(['queue', 'resume', 'ops.q', ...db.args])).code, 0);
      assert.equal((await runCli(['queue', 'pause', 'no.such.q', ...db.args])).code, 1);
      assert.equal((await runCli(['queue', 'stop', 'ops.q', ...db.args])).code, 2);

      const twice = await runCli(['stats', '--schema', 'a', '--schema', 'b']);
      assert.equal(twice.code, 2);
      assert.match(twice.io.err(), /--schema was given more than once/);
    });

    test('run-now makes a scheduled job due, by id or by filter; a finished one exits 1', async () => {
      const [later, other] = seeded.now;
      const one = await runCli(['run-now', later, ...db.args]);
      assert.equal(one.code, 0, one.io.err());
      assert.equal(one.io.out(), `Job ${later} (now.q): pending → pending\n`);
      const dry = await runCli([
        'run-now',
        '--queue',
        'now.q',
        '--status',
        'pending',
        '--dry-run',
        ...db.args,
      ]);
      assert.equal(dry.code, 0, dry.io.err());
      assert.match(dry.io.out(), /^Dry run: 2 pending jobs of queue now\.q match\. Nothing was run now\./);
      const all = await runCli(['run-now', '--queue', 'now.q', '--status', 'pending', ...db.args]);
      assert.match(all.io.out(), /^Made due now 2 of 2 matching pending jobs of queue now\.q\./);
      await withEngine(db.open, async (tm) => {
        const job = await tm.getJob(other);
        assert.ok(job && job.runAt.getTime() <= Date.now() + 1_000, 'due now');
        await tm.cancelJob(other);
      });
      const refused = await runCli(['run-now', other, ...db.args]);
      assert.equal(refused.code, 1);
      assert.match(refused.io.err(), /only pending or retry-waiting jobs can be run now/);
    });

    test('TIDEMARK_DATABASE_URL and TIDEMARK_SCHEMA stand in for the flags', async () => {
      const [, database, , schema] = db.args;
      const io = captureIo({ TIDEMARK_DATABASE_URL: database, TIDEMARK_SCHEMA: schema });
      const { code } = await runCli(['stats'], io);
      assert.equal(code, 0, io.err());
      assert.match(io.out(), /^act\.q\s/m);
    });
  });
}

// The commands on an embedded folder, each a new open of it as a shell runs them: what one
// writes the next reads, and the environment names the folder as well as the flags do.
if (TEST_DRIVERS.includes('pglite') && !ONE_DRIVER.includes('pglite')) {
  describe('tidemark CLI commands on an embedded folder [pglite]', () => {
    const db = cliDatabase('pglite');
    after(() => db.dispose());

    test('migrate, add, job and stats, each opening the folder anew', async () => {
      await db.seed();
      const migrated = await runCli(['migrate', ...db.args]);
      assert.equal(migrated.code, 0, migrated.io.err());
      assert.match(migrated.io.out(), new RegExp(`now at version ${latestVersion}`));

      await withEngine(db.open, async (tm) => {
        tm.createQueue({ name: 'folder.q' });
        await tm.listQueues();
      });
      const added = await runCli(['add', 'folder.q', '--data', '{"n":1}', ...db.args]);
      assert.equal(added.code, 0, added.io.err());
      const id = added.io.out().match(/^Added: job (\d+) \(folder\.q\)\.$/m)?.[1];
      assert.ok(id, added.io.out());

      const shown = await runCli(['job', id, ...db.args]);
      assert.equal(shown.code, 0, shown.io.err());
      assert.match(
        shown.io.out(),
        new RegExp(`^Job ${id} \\(folder\\.q\\): pending, attempt 0 of \\d+$`, 'm'),
      );

      const [, folder, , schema] = db.args;
      const io = captureIo({ TIDEMARK_DATABASE_URL: folder, TIDEMARK_SCHEMA: schema });
      assert.equal(await runCli(['stats'], io).then((run) => run.code), 0, io.err());
      assert.match(io.out(), /^folder\.q\s+1\s/m);
    });
  });
}
