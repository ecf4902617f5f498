import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { silentLogger, Tidemark } from '../../src/index.js';
import { sleep, waitFor } from '../support/wait-for.js';
import { defineCrashQueues, FLOWS_QUEUE, JOBS_QUEUE, STEPS, sideTablesSql } from './fixtures/crash-queues.js';
import { findInconsistencies } from './support/consistency.js';
import {
  adminClient,
  describePg,
  dropFaultSchema,
  faultSchema,
  terminateApp,
  urlFor,
  waitBackendsGone,
} from './support/pg.js';
import { type FixtureProcess, startFixture } from './support/processes.js';

const WORKERS = 4;
const JOBS = 5_000;
const FLOWS = 300;
const KILL_EVERY_MS = 2_000;
/** Kills stop after this long even if work remains; the survivors finish the rest. */
const KILL_FOR_MS = 60_000;

describePg('crash: 4 worker processes, one killed with SIGKILL every 2 seconds', () => {
  const run = `tm_faults_crash_${randomBytes(3).toString('hex')}`;
  const schema = faultSchema();
  let admin: pg.Client;
  let tm: Tidemark;
  const added = new Set<string>();
  /** How many killed workers held each job (active, locked by the worker) when they died. */
  const held = new Map<string, number>();
  const processes: { name: string; proc: FixtureProcess; killed: boolean }[] = [];
  let kills = 0;
  let elapsedMs = 0;
  let passed = 0;

  const q = async <Row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await admin.query(text, params)).rows as Row[];

  before(async () => {
    admin = await adminClient(run);
    tm = await Tidemark.open({ database: urlFor(`${run}_main`), schema, logger: silentLogger, poolSize: 4 });
    defineCrashQueues(tm);
    await tm.listQueues();
    await admin.query(sideTablesSql(schema));
    for (let i = 0; i < JOBS; i += 1_000) {
      const batch = Array.from({ length: 1_000 }, () => ({
        queue: JOBS_QUEUE,
        data: { ms: 2 + Math.floor(Math.random() * 8) },
      }));
      for (const { id } of await tm.addJobs(batch)) added.add(id);
    }
    const flows = Array.from({ length: FLOWS }, () => ({
      queue: FLOWS_QUEUE,
      data: { ms: 10 + Math.floor(Math.random() * 40) },
    }));
    for (const { id } of await tm.addJobs(flows)) added.add(id);

    const slots = Array.from({ length: WORKERS }, (_, slot) => ({ slot, incarnation: 0, name: '' }));
    const start = (s: (typeof slots)[number]) => {
      s.name = `${run}_w${s.slot}_${s.incarnation}`;
      const proc = startFixture('crash-worker', {
        TM_FAULTS_URL: urlFor(s.name),
        TM_FAULTS_SCHEMA: schema,
        TM_FAULTS_WORKER: s.name,
      });
      processes.push({ name: s.name, proc, killed: false });
      return proc;
    };
    const procs = slots.map(start);
    await Promise.all(procs.map((p) => p.line((l) => l === 'ready')));

    const unfinished = async () =>
      Number(
        (
          await q<{ n: number }>(
            `select count(*)::int as n from "${schema}".jobs where status <> 'completed'`,
          )
        )[0].n,
      );
    const t0 = Date.now();
    while (Date.now() - t0 < KILL_FOR_MS && (await unfinished()) > 0) {
      await sleep(KILL_EVERY_MS);
      if (process.env.TM_FAULTS_TRACE)
        process.stderr.write(`t=${Date.now() - t0} unfinished=${await unfinished()}\n`);
      const s = slots[kills % WORKERS];
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
      // A killed client's backend finishes the statement it was running; only then is the
      // set of jobs the dead worker held final.
      await waitBackendsGone(admin, s.name);
      const rows = await q<{ id: string }>(
        `select id::text as id from "${schema}".jobs where status = 'active' and locked_by = $1`,
        [s.name],
      );
      for (const { id } of rows) held.set(id, (held.get(id) ?? 0) + 1);
      kills++;
      s.incarnation++;
      start(s);
    }
    await waitFor(
      'every job to finish',
      async () => {
        const [row] = await q<{ open: number; bad: number }>(
          `select count(*) filter (where status in ('pending','active','retry','waiting','paused'))::int as open,
                  count(*) filter (where status in ('failed','cancelled','expired'))::int as bad
             from "${schema}".jobs`,
        );
        if (Number(row.bad) > 0) throw new Error(`${row.bad} jobs ended in a status other than completed`);
        return Number(row.open) === 0;
      },
      { timeoutMs: 180_000, intervalMs: 250 },
    );
    elapsedMs = Date.now() - t0;
    const alive = processes.filter((p) => !p.killed);
    await Promise.all(alive.map((p) => p.proc.line((l) => l === 'ready')));
    for (const p of alive) p.proc.child.kill('SIGTERM');
    const exits = await Promise.all(alive.map((p) => p.proc.exited));
    exits.forEach((exit, i) => {
      assert.deepEqual(
        exit,
        { code: 0, signal: null },
        `worker ${alive[i].name}:\n${alive[i].proc.stderr()}`,
      );
    });
  });

  after(async () => {
    for (const p of processes) if (p.proc.child.exitCode === null) p.proc.child.kill('SIGKILL');
    await tm?.close();
    if (admin) {
      await terminateApp(admin, `${run}_main`).catch(() => {});
      if (passed === 5) await dropFaultSchema(admin, schema);
      await admin.end();
    }
  });

  test('no worker process crashed on its own or logged an unhandled rejection', () => {
    for (const p of processes) {
      assert.doesNotMatch(p.proc.stderr(), /FATAL|unhandledRejection|uncaughtException/, p.name);
    }
    passed++;
  });

  test('every job is completed, recorded as completed exactly once, and none is lost', async (t) => {
    const [counts] = await q<{ jobs: number; completed: number; records: number; distinct_records: number }>(
      `select (select count(*) from "${schema}".jobs)::int as jobs,
              (select count(*) from "${schema}".jobs where status = 'completed')::int as completed,
              (select count(*) from "${schema}".fault_completions)::int as records,
              (select count(distinct job_id) from "${schema}".fault_completions)::int as distinct_records`,
    );
    assert.equal(added.size, JOBS + FLOWS);
    assert.equal(counts.jobs, JOBS + FLOWS);
    assert.equal(counts.completed, JOBS + FLOWS);
    const ids = await q<{ id: string }>(`select id::text as id from "${schema}".jobs`);
    assert.deepEqual(new Set(ids.map((r) => r.id)), added);
    const twice = await q(
      `select job_id, count(*) from "${schema}".fault_completions group by job_id having count(*) <> 1`,
    );
    assert.deepEqual(twice, []);
    assert.equal(counts.records, JOBS + FLOWS);
    assert.equal(counts.distinct_records, JOBS + FLOWS);
    const stray = await q(
      `select c.job_id from "${schema}".fault_completions c
        where not exists (select 1 from "${schema}".jobs j where j.id = c.job_id)`,
    );
    assert.deepEqual(stray, []);
    passed++;
    t.diagnostic(
      `${JOBS + FLOWS} jobs, ${kills} kills, ${held.size} jobs held by a killed worker, ${Math.round(elapsedMs / 1000)} s`,
    );
  });

  test('attempts are counted honestly: one, plus one for each killed worker that held the job', async () => {
    assert.ok(kills >= 5, `only ${kills} kills happened`);
    assert.ok(held.size > 0, 'no kill hit a job in progress: the test proved nothing');
    const rows = await q<{ id: string; attempts: number; error: unknown }>(
      `select id::text as id, attempts, error from "${schema}".jobs`,
    );
    // The last error says which worker's lock lapsed when an attempt was recovered.
    const wrong = rows
      .filter((r) => r.attempts !== 1 + (held.get(r.id) ?? 0))
      .map(
        (r) =>
          `${r.id}: ${r.attempts} attempts, held by ${held.get(r.id) ?? 0} killed workers, last error ${JSON.stringify(r.error)}`,
      );
    assert.deepEqual(wrong.slice(0, 20), []);
    passed++;
  });

  test('a workflow step whose checkpoint committed never runs again', async (t) => {
    const checkpoints = await q<{ job_id: string; name: string; output: string }>(
      `select job_id::text, name, output #>> '{}' as output from "${schema}".checkpoints where kind = 'step'`,
    );
    assert.equal(checkpoints.length, FLOWS * STEPS.length);
    // Side effects written after their step's checkpoint was first committed: none allowed.
    const late = await q(
      `select e.job_id, e.step, e.worker from "${schema}".fault_effects e
         join "${schema}".checkpoints c on c.job_id = e.job_id and c.name = e.step
        where e.at >= c.created_at`,
    );
    assert.deepEqual(late, []);
    // Exactly one execution per step produced the stored value ...
    const producers = await q(
      `select c.job_id, c.name, count(e.*)::int as n from "${schema}".checkpoints c
         left join "${schema}".fault_effects e on e.job_id = c.job_id and e.step = c.name and e.nonce::text = c.output #>> '{}'
        where c.kind = 'step' group by c.job_id, c.name having count(e.*) <> 1`,
    );
    assert.deepEqual(producers, []);
    // ... and every execution of a later step received that stored value, never a fresh one.
    const prevMismatch = await q(
      `select e.job_id, e.step from "${schema}".fault_effects e
         left join "${schema}".checkpoints c on c.job_id = e.job_id
              and c.name = case e.step when 'b' then 'a' when 'c' then 'b' end
        where e.prev::text is distinct from (c.output #>> '{}')`,
    );
    assert.deepEqual(prevMismatch, []);
    const outputs = await q<{ id: string; values: string[] }>(
      `select id::text as id, output -> 'values' as values from "${schema}".jobs where queue = $1`,
      [FLOWS_QUEUE],
    );
    const stored = new Map<string, string[]>();
    for (const c of checkpoints) {
      const list = stored.get(c.job_id) ?? ['', '', ''];
      list[STEPS.indexOf(c.name as (typeof STEPS)[number])] = c.output;
      stored.set(c.job_id, list);
    }
    for (const o of outputs) assert.deepEqual(o.values, stored.get(o.id), `output of workflow ${o.id}`);
    // Re-executions (a step that ran but whose checkpoint never committed) are the
    // at-least-once part: at most one per killed worker that held the workflow.
    const reruns = await q<{ job_id: string; n: number }>(
      `select e.job_id::text as job_id, count(*)::int as n from "${schema}".fault_effects e
         join "${schema}".checkpoints c on c.job_id = e.job_id and c.name = e.step
        where e.nonce::text <> c.output #>> '{}' group by e.job_id`,
    );
    for (const r of reruns) {
      assert.ok(r.n <= (held.get(r.job_id) ?? 0), `workflow ${r.job_id} re-ran ${r.n} steps`);
    }
    passed++;
    t.diagnostic(
      `${reruns.reduce((sum, r) => sum + r.n, 0)} step bodies ran again after a kill before their checkpoint`,
    );
  });

  test('the tables are consistent afterwards', async () => {
    assert.deepEqual(await findInconsistencies(async (text, params) => q(text, params), schema), []);
    passed++;
  });
});
