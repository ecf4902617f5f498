import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ALL_STATUSES, FINISHED_STATUSES, type JobStatus, type Tidemark } from '../../src/index.js';
import { rawQuery } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob, passTime } from '../support/factory.js';

/**
 * Random histories against a model. Every stored time is a whole number of hours plus a
 * half, and the clock only moves by whole hours, so no row is ever within minutes of the
 * boundary: the real seconds a run takes cannot change an outcome.
 */
const HOUR = 3_600;
const half = (k: number) => k + 0.5;

interface JobSpec {
  status: JobStatus;
  queue: 'a' | 'b';
  /** Hours, relative to the start of the run. */
  finishedAt: number | null;
  purgeAfter: number | null;
  pin: number | null;
  signals: { consumedAt: number | null; purgeAfter: number | null }[];
  /** Index of the parent among the tree's earlier members (members only). */
  parent: number;
}

type Action =
  | { kind: 'sweep'; batchSize: number }
  | { kind: 'dryRun' }
  | { kind: 'clock'; hours: number }
  | { kind: 'purge'; queue?: 'a' | 'b'; statuses?: JobStatus[]; olderThanHours: number };

const hoursAgo = fc.integer({ min: 0, max: 48 }).map((k) => -half(k));
const window = fc.option(fc.integer({ min: 1, max: 72 }), { nil: null });

const jobSpec: fc.Arbitrary<JobSpec> = fc
  .record({
    status: fc.constantFrom(...ALL_STATUSES),
    queue: fc.constantFrom('a' as const, 'b' as const),
    ago: hoursAgo,
    window,
    // An in-flight row with a stale purge time must be protected by its status alone.
    stale: fc.option(hoursAgo, { nil: null, freq: 3 }),
    pin: fc.option(fc.integer({ min: -24, max: 48 }).map(half), { nil: null, freq: 2 }),
    signals: fc.array(
      fc.record({ consumed: fc.option(hoursAgo, { nil: null }), window, stale: fc.boolean() }),
      { maxLength: 2 },
    ),
    parent: fc.nat(),
  })
  .map((r) => {
    const finished = (FINISHED_STATUSES as readonly string[]).includes(r.status);
    return {
      status: r.status,
      queue: r.queue,
      finishedAt: finished ? r.ago : null,
      purgeAfter: finished ? (r.window === null ? null : r.ago + r.window) : r.stale,
      pin: r.pin,
      signals: r.signals.map((s) => ({
        consumedAt: s.consumed,
        purgeAfter:
          s.consumed === null
            ? s.stale
              ? -half(1)
              : null
            : s.window === null
              ? null
              : s.consumed + s.window,
      })),
      parent: r.parent,
    };
  });

const history = fc.array(fc.array(jobSpec, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 });

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('sweep' as const), batchSize: fc.integer({ min: 1, max: 4 }) }),
    weight: 3,
  },
  { arbitrary: fc.constant({ kind: 'dryRun' as const }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('clock' as const), hours: fc.integer({ min: 1, max: 100 }) }),
    weight: 3,
  },
  {
    arbitrary: fc.record(
      {
        kind: fc.constant('purge' as const),
        queue: fc.constantFrom('a' as const, 'b' as const),
        statuses: fc.subarray([...FINISHED_STATUSES], { minLength: 1 }),
        olderThanHours: fc.integer({ min: 0, max: 48 }),
      },
      { requiredKeys: ['kind', 'olderThanHours'] },
    ),
    weight: 2,
  },
);

/** The model: which rows exist, and what each operation must delete. */
interface MJob extends JobSpec {
  id: string;
  root: string;
}
interface Model {
  now: number;
  jobs: Map<string, MJob>;
  /** Signal name → job id and times. */
  signals: Map<string, { job: string; consumedAt: number | null; purgeAfter: number | null }>;
  /** Lock scope → job id and expiry. */
  locks: Map<string, { job: string; expiresAt: number }>;
}

const isFinished = (status: string) => (FINISHED_STATUSES as readonly string[]).includes(status);

function pinned(model: Model, job: string): boolean {
  for (const lock of model.locks.values()) if (lock.job === job && lock.expiresAt > model.now) return true;
  return false;
}

function trees(model: Model): MJob[][] {
  const byRoot = new Map<string, MJob[]>();
  for (const job of model.jobs.values()) byRoot.set(job.root, [...(byRoot.get(job.root) ?? []), job]);
  return [...byRoot.values()];
}

/** Delete whole trees that pass `deletable`; returns the jobs deleted. */
function deleteTrees(model: Model, deletable: (job: MJob) => boolean, root?: (job: MJob) => boolean): MJob[] {
  const gone: MJob[] = [];
  for (const tree of trees(model)) {
    const top = tree.find((j) => j.id === j.root) as MJob;
    if ((root && !root(top)) || !tree.every(deletable)) continue;
    gone.push(...tree);
  }
  const ids = new Set(gone.map((j) => j.id));
  for (const id of ids) model.jobs.delete(id);
  for (const [name, s] of model.signals) if (ids.has(s.job)) model.signals.delete(name);
  for (const [scope, l] of model.locks) if (ids.has(l.job)) model.locks.delete(scope);
  return gone;
}

function modelSweep(model: Model, dryRun: boolean) {
  const target = dryRun ? cloneModel(model) : model;
  const due = (j: MJob) =>
    isFinished(j.status) && j.purgeAfter !== null && j.purgeAfter <= target.now && !pinned(target, j.id);
  const jobs = deleteTrees(target, due);
  let signals = 0;
  for (const [name, s] of target.signals) {
    if (s.consumedAt !== null && s.purgeAfter !== null && s.purgeAfter <= target.now) {
      target.signals.delete(name);
      signals++;
    }
  }
  let uniqueLocks = 0;
  for (const [scope, l] of target.locks) {
    if (l.expiresAt <= target.now) {
      target.locks.delete(scope);
      uniqueLocks++;
    }
  }
  const byQueue = new Map<string, number>();
  for (const j of jobs)
    byQueue.set(`${j.queue}/${j.status}`, (byQueue.get(`${j.queue}/${j.status}`) ?? 0) + 1);
  return { jobs: jobs.length, signals, uniqueLocks, byQueue };
}

function cloneModel(model: Model): Model {
  return {
    now: model.now,
    jobs: new Map(model.jobs),
    signals: new Map(model.signals),
    locks: new Map(model.locks),
  };
}

async function insertHistory(tm: Tidemark, spec: JobSpec[][], model: Model): Promise<void> {
  let n = 0;
  for (const tree of spec) {
    const ids: string[] = [];
    for (const [index, job] of tree.entries()) {
      const names = job.signals.map(() => `s${++n}`);
      const scope = `lock${++n}`;
      const id = await insertJob(tm, {
        queue: job.queue,
        status: job.status,
        finishedAt: job.finishedAt === null ? null : job.finishedAt * HOUR,
        purgeAfter: job.purgeAfter === null ? null : job.purgeAfter * HOUR,
        parentId: index === 0 ? undefined : ids[job.parent % index],
        pins: job.pin === null ? [] : [{ scope, expiresIn: job.pin * HOUR }],
        signals: job.signals.map((s, i) => ({
          name: names[i],
          consumedAt: s.consumedAt === null ? null : s.consumedAt * HOUR,
          purgeAfter: s.purgeAfter === null ? null : s.purgeAfter * HOUR,
        })),
      });
      ids.push(id);
      model.jobs.set(id, { ...job, id, root: ids[0] });
      for (const [i, signal] of job.signals.entries()) model.signals.set(names[i], { job: id, ...signal });
      if (job.pin !== null) model.locks.set(scope, { job: id, expiresAt: job.pin });
    }
  }
}

async function assertMatches(tm: Tidemark, model: Model, after: string): Promise<void> {
  const s = `"${tm.schema}"`;
  const jobs = await rawQuery<{ id: string }>(tm, `select id::text as id from ${s}.jobs order by id`);
  const signals = await rawQuery<{ name: string }>(tm, `select name from ${s}.signals order by name`);
  const locks = await rawQuery<{ scope: string }>(tm, `select scope from ${s}.unique_locks order by scope`);
  const sorted = (values: Iterable<string>) => [...values].sort();
  const inFlightGone = [...model.jobs.values()].filter(
    (j) => !isFinished(j.status) && !jobs.some((r) => r.id === j.id),
  );
  assert.deepEqual(inFlightGone, [], `R1: an in-flight job was deleted (${after})`);
  assert.deepEqual(sorted(jobs.map((r) => r.id)), sorted(model.jobs.keys()), `jobs after ${after}`);
  assert.deepEqual(
    sorted(signals.map((r) => r.name)),
    sorted(model.signals.keys()),
    `signals after ${after}`,
  );
  assert.deepEqual(sorted(locks.map((r) => r.scope)), sorted(model.locks.keys()), `locks after ${after}`);
}

describeEachDriver('retention against a model (property)', ({ open }) => {
  test('nothing protected is ever deleted; everything due goes by the next full sweep', async () => {
    const tm = await open();
    await fc.assert(
      fc.asyncProperty(history, fc.array(action, { minLength: 1, maxLength: 6 }), async (spec, actions) => {
        await rawQuery(tm, `delete from "${tm.schema}".jobs`);
        const model: Model = { now: 0, jobs: new Map(), signals: new Map(), locks: new Map() };
        await insertHistory(tm, spec, model);
        await assertMatches(tm, model, 'insert');
        for (const [step, act] of [...actions, { kind: 'sweep', batchSize: 2 } as const].entries()) {
          const label = `step ${step}: ${JSON.stringify(act)}`;
          if (act.kind === 'clock') {
            await passTime(tm, act.hours * HOUR);
            model.now += act.hours;
          } else if (act.kind === 'sweep' || act.kind === 'dryRun') {
            const expected = modelSweep(model, act.kind === 'dryRun');
            const got =
              act.kind === 'sweep'
                ? await tm.sweep({ batchSize: act.batchSize })
                : await tm.sweep({ dryRun: true });
            assert.deepEqual(
              { jobs: got.jobs, signals: got.signals, uniqueLocks: got.uniqueLocks },
              { jobs: expected.jobs, signals: expected.signals, uniqueLocks: expected.uniqueLocks },
              label,
            );
            assert.deepEqual(
              new Map(got.byQueue.map((r) => [`${r.queue}/${r.status}`, r.count])),
              expected.byQueue,
              label,
            );
          } else {
            const statuses = act.statuses ?? [...FINISHED_STATUSES];
            const cutoff = model.now - act.olderThanHours;
            const gone = deleteTrees(
              model,
              (j) =>
                statuses.includes(j.status) &&
                j.finishedAt !== null &&
                j.finishedAt <= cutoff &&
                !pinned(model, j.id),
              (top) => act.queue === undefined || top.queue === act.queue,
            );
            const removed = await tm.removeJobs({
              ...(act.queue === undefined ? {} : { queue: act.queue }),
              statuses,
              olderThanSeconds: act.olderThanHours * HOUR,
              batchSize: 2,
            });
            assert.equal(removed, gone.length, label);
          }
          await assertMatches(tm, model, label);
        }
      }),
      { numRuns: 25 },
    );
  });
});
