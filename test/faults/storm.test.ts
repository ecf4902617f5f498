import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../../scripts/embedded-postgres.mjs';
import { engineOf } from '../../src/engine-handle.js';
import { type ArchivedJob, type Queryable, silentLogger, Tidemark, TidemarkError } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { sleep, waitFor } from '../support/wait-for.js';
import {
  CHILD,
  CHILDREN,
  defineStormQueues,
  FLOW,
  PLAIN,
  type Poison,
  stormTablesSql,
} from './fixtures/storm-queues.js';
import { findInconsistencies, sqlOf } from './support/consistency.js';
import { describePg } from './support/pg.js';
import { type FixtureProcess, startFixture } from './support/processes.js';

const SCHEMA = 'storm';
const WORKERS = 3;
const STORM_MS = 30_000;
/** The storm lasts until it has killed this many workers, however slow the machine (at most 90 s). */
const MIN_KILLS = 6;
const STORM_CAP_MS = 90_000;
const KILL_EVERY_MS = 2_500;
/** The server is shut down this far into the storm, and started again after DOWN_MS. */
const RESTART_AT_MS = 12_000;
const DOWN_MS = 3_000;
const PLAIN_JOBS = 1_500;
const FLOWS = 60;

/**
 * Everything at once, on a PostgreSQL of the test's own: worker processes killed with SIGKILL,
 * the server shut down and started again with downtime, handler errors PostgreSQL cannot
 * store as they are, operators deleting, cancelling and retrying workflow jobs, and sweeps
 * deleting finished trees (archived, so what they removed can still be checked).
 */
describePg('storm: kills, a real restart, poison errors, operators and sweeps at once', () => {
  let server: EmbeddedPostgres;
  let tm: Tidemark;
  const acknowledged = new Map<string, Poison | null>();
  const flows: string[] = [];
  const processes: { name: string; proc: FixtureProcess; killed: boolean }[] = [];
  /** Every child id seen for each (parent, step): more than one is a re-created child. */
  const childIds = new Map<string, Set<string>>();
  const figures = { kills: 0, restarts: 0, operatorActions: 0, refused: 0, outageErrors: 0, sweeps: 0 };
  const unexpected: unknown[] = [];
  let down = false;

  const note = (parent: string, step: string, id: string) => {
    const key = `${parent}:${step}`;
    const ids = childIds.get(key) ?? new Set<string>();
    ids.add(id);
    childIds.set(key, ids);
  };
  /** Errors are expected while the server is down and just after; anything else is a finding. */
  const tolerate = (error: unknown) => {
    if (error instanceof TidemarkError && error.code !== 'CLOSED') figures.refused++;
    else if (down) figures.outageErrors++;
    else unexpected.push(error);
  };
  const query = async <Row>(text: string, values: unknown[] = []) =>
    (await runnerOf(engineOf(tm).storage).driver.query<Row>(text, values)).rows;

  before(async () => {
    server = await startEmbeddedPostgres({ database: 'storm' });
    const archive = async (batch: ArchivedJob[], tx: Queryable) => {
      for (const { job } of batch) {
        const step = job.parentId === null ? null : String((job.data as { i?: number }).i);
        await tx.query(
          `insert into "${SCHEMA}".storm_archive (job_id, parent_id, parent_step, queue, status, error) values ($1, $2, $3, $4, $5, $6)`,
          [
            job.id,
            job.parentId,
            step,
            job.queue,
            job.status,
            job.error === null ? null : JSON.stringify(job.error),
          ],
        );
      }
    };
    tm = await Tidemark.open({
      database: server.url,
      schema: SCHEMA,
      logger: silentLogger,
      poolSize: 6,
      archive,
    });
    defineStormQueues(tm);
    await tm.listQueues();
    await query(stormTablesSql(SCHEMA));
    const plain = Array.from({ length: PLAIN_JOBS }, (_, n) => {
      const poison: Poison | null = n % 50 === 7 ? 'nul' : n % 50 === 31 ? 'surrogate' : null;
      return {
        queue: PLAIN,
        data: { ms: 2 + (n % 8), ...(poison ? { poison } : {}) },
        maxAttempts: poison ? 2 : 100,
      };
    });
    for (let i = 0; i < plain.length; i += 500) {
      const batch = plain.slice(i, i + 500);
      const ids = await tm.addJobs(batch);
      for (const [k, { id }] of ids.entries()) acknowledged.set(id, batch[k].data.poison ?? null);
    }
    for (const { id } of await tm.addJobs(Array.from({ length: FLOWS }, () => ({ queue: FLOW }))))
      flows.push(id);

    const slots = Array.from({ length: WORKERS }, (_, slot) => ({ slot, incarnation: 0, name: '' }));
    const start = (s: (typeof slots)[number]) => {
      s.name = `storm_w${s.slot}_${s.incarnation}`;
      const proc = startFixture('storm-worker', {
        TM_FAULTS_URL: server.url,
        TM_FAULTS_SCHEMA: SCHEMA,
        TM_FAULTS_WORKER: s.name,
      });
      processes.push({ name: s.name, proc, killed: false });
      return proc;
    };
    await Promise.all(slots.map(start).map((p) => p.line((l) => l === 'ready')));

    const t0 = Date.now();
    const until = () => {
      const elapsed = Date.now() - t0;
      return elapsed < STORM_MS || (figures.kills < MIN_KILLS && elapsed < STORM_CAP_MS);
    };
    const operate = async () => {
      while (until()) {
        try {
          const [row] = await query<{ id: string }>(
            `select id::text as id from "${SCHEMA}".jobs where queue in ($1, $2) order by random() limit 1`,
            [FLOW, CHILD],
          );
          if (row) {
            const pick = Math.floor(Math.random() * 4);
            if (pick === 0) await tm.deleteJob(row.id);
            else if (pick === 1) await tm.deleteWorkflowSubtree(row.id);
            else if (pick === 2) await tm.cancelJob(row.id);
            else await tm.retryJob(row.id);
            figures.operatorActions++;
          }
        } catch (error) {
          tolerate(error);
        }
        await sleep(80 + Math.random() * 80);
      }
    };
    const sweep = async () => {
      while (until()) {
        try {
          await tm.sweep();
          figures.sweeps++;
        } catch (error) {
          tolerate(error);
        }
        await sleep(300);
      }
    };
    const scan = async () => {
      while (until()) {
        try {
          const rows = await query<{ id: string; parent_id: string; step: string }>(
            `select id::text as id, parent_id::text as parent_id, data->>'i' as step from "${SCHEMA}".jobs where parent_id is not null`,
          );
          for (const row of rows) note(row.parent_id, row.step, row.id);
        } catch (error) {
          tolerate(error);
        }
        await sleep(100);
      }
    };
    const storm = async () => {
      let restarted = false;
      while (until()) {
        await sleep(KILL_EVERY_MS);
        if (!restarted && Date.now() - t0 >= RESTART_AT_MS) {
          restarted = true;
          down = true;
          await server.halt();
          await sleep(DOWN_MS);
          await server.restart();
          figures.restarts++;
          // Pools notice the restart on their next statement; give them a moment to reconnect.
          await sleep(1_000);
          down = false;
          continue;
        }
        const s = slots[figures.kills % WORKERS];
        const entry = processes.findLast((p) => p.name === s.name);
        assert.ok(entry);
        assert.equal(
          entry.proc.child.exitCode,
          null,
          `worker ${s.name} died on its own:\n${entry.proc.stderr()}`,
        );
        entry.killed = true;
        entry.proc.child.kill('SIGKILL');
        await entry.proc.exited;
        figures.kills++;
        s.incarnation++;
        await start(s).line((l) => l === 'ready');
      }
    };
    await Promise.all([storm(), operate(), operate(), sweep(), scan()]);

    await waitFor(
      'every job to finish',
      async () => {
        const [row] = await query<{ open: number }>(
          `select count(*)::int as open from "${SCHEMA}".jobs where status in ('pending','active','retry','waiting','paused')`,
        );
        return Number(row.open) === 0;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const alive = processes.filter((p) => !p.killed);
    for (const p of alive) p.proc.child.kill('SIGTERM');
    await Promise.all(alive.map((p) => p.proc.exited));
  });

  after(async () => {
    for (const p of processes) if (p.proc.child.exitCode === null) p.proc.child.kill('SIGKILL');
    await tm?.close();
    await server?.stop();
  });

  test('no worker process died on its own, and the storm met no unexpected error', () => {
    for (const p of processes) {
      assert.doesNotMatch(p.proc.stderr(), /FATAL/, `${p.name}:\n${p.proc.stderr()}`);
    }
    assert.deepEqual(unexpected, []);
    assert.ok(figures.kills >= MIN_KILLS && figures.restarts === 1, JSON.stringify(figures));
  });

  test('every acknowledged plain job completed exactly once, or (poisoned) failed with a readable error', async (t) => {
    // Each plain job's last state: its row, or what the sweep's archive hook kept of it.
    type Ended = {
      id: string;
      status: string;
      message: string | null;
      name: string | null;
      worker: string | null;
    };
    const endedOf = (id: string, table: string) =>
      query<Ended>(
        `select ${id}::text as id, status, error->>'message' as message, error->>'name' as name,
                error->>'worker' as worker
           from "${SCHEMA}".${table} where queue = $1`,
        [PLAIN],
      );
    const live = await endedOf('id', 'jobs');
    const archived = await endedOf('job_id', 'storm_archive');
    const completions = await query<{ id: string; n: number }>(
      `select job_id::text as id, count(*)::int as n from "${SCHEMA}".storm_completions group by job_id`,
    );
    const status = new Map([...archived, ...live].map((r) => [r.id, r.status]));
    const recorded = new Map(completions.map((r) => [r.id, Number(r.n)]));
    const violations: string[] = [];
    for (const [id, poison] of acknowledged) {
      const ended = status.get(id);
      const want = poison ? 'failed' : 'completed';
      if (ended !== want) violations.push(`job ${id} (${poison ?? 'healthy'}) is ${ended ?? 'lost'}`);
      if ((recorded.get(id) ?? 0) !== (poison ? 0 : 1))
        violations.push(`job ${id} recorded ${recorded.get(id) ?? 0} completions`);
    }
    const killed = new Set(processes.filter((p) => p.killed).map((p) => p.name));
    let readable = 0;
    for (const row of [...archived, ...live].filter((r) => acknowledged.get(r.id))) {
      // A poisoned job's last attempt may have run on a worker the storm killed: it then fails
      // as stalled, which names that worker, and its poison never reached the database.
      if (row.name === 'StalledJobError' && row.worker !== null && killed.has(row.worker)) continue;
      if (!row.message?.includes('\ufffd'))
        violations.push(`job ${row.id} error ${JSON.stringify(row.message)}`);
      else readable++;
    }
    assert.deepEqual(violations.slice(0, 10), []);
    const poisoned = [...acknowledged.values()].filter((p) => p !== null).length;
    assert.ok(
      readable >= poisoned / 2,
      `${readable} of ${poisoned} poisoned jobs ended with their readable error`,
    );
    t.diagnostic(
      `storm: ${figures.kills} kills, ${figures.restarts} restart (${DOWN_MS} ms down), ${figures.operatorActions} operator actions (${figures.refused} refused), ${figures.sweeps} sweeps, ${figures.outageErrors} calls failed during the outage; ${acknowledged.size} plain jobs checked (${archived.length} of them archived by sweeps; ${readable} of ${poisoned} poisoned ones failed with their readable error), violations: ${violations.length}`,
    );
  });

  test('no workflow ever created a child twice', async () => {
    const rows = await query<{ id: string; parent_id: string; step: string }>(
      `select id::text as id, parent_id::text as parent_id, data->>'i' as step from "${SCHEMA}".jobs where parent_id is not null
       union all
       select job_id::text, parent_id::text, parent_step from "${SCHEMA}".storm_archive where parent_id is not null`,
    );
    for (const row of rows) note(row.parent_id, row.step, row.id);
    const recreated = [...childIds]
      .filter(([, ids]) => ids.size > 1)
      .map(([key, ids]) => `${key}: ${[...ids]}`);
    assert.deepEqual(recreated, []);
    // Operators cancel and delete some workflows before their children start; most run.
    assert.ok(childIds.size >= FLOWS / 2, `children seen: ${childIds.size} (of up to ${FLOWS * CHILDREN})`);
  });

  test('the tables are consistent afterwards', async () => {
    assert.deepEqual(await findInconsistencies(sqlOf(tm), SCHEMA), []);
  });
});
