import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import {
  ALL_STATUSES,
  AncestorInFlightError,
  FINISHED_STATUSES,
  JobHasChildrenError,
  JobHeldError,
  JobInFlightError,
  type JobStatus,
  PartOfWorkflowError,
  RetentionPausedError,
  silentLogger,
  type Tidemark,
} from '../../src/index.js';
import { JOB_DEPENDENTS } from '../../src/storage/sql/job-removal.js';
import { consumeSignals } from '../../src/storage/sql/workflow.js';
import { type DriverKind, PG_URL, rawQuery } from '../support/databases.js';
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
  /** The job's concurrency key: deleted with its row, nothing else to remove. */
  key: 'k1' | 'k2' | null;
}

/** Frozen windows in hours (absent: kept forever). */
type Windows = Partial<
  Record<'completed' | 'failed' | 'cancelled' | 'expired' | 'consumedSignals' | 'logsAfterSeconds', number>
>;

type Action =
  | { kind: 'sweep'; batchSize: number }
  | { kind: 'dryRun' }
  | { kind: 'clock'; hours: number }
  | { kind: 'purge'; queue?: 'a' | 'b'; statuses?: JobStatus[]; olderThanHours: number }
  | { kind: 'pause' }
  | { kind: 'resume' }
  | { kind: 'holdJob'; pick: number }
  | { kind: 'holdQueue'; queue: 'a' | 'b' }
  | { kind: 'release'; pick: number }
  | { kind: 'apply'; queue: 'a' | 'b'; windows: Windows }
  /** A running job of `queue` consumes a signal while applyRetention re-freezes the queue. */
  | { kind: 'applyConsuming'; queue: 'a' | 'b'; windows: Windows }
  | { kind: 'delete'; pick: number; subtree: boolean }
  /** An operator's override or pause of a key of queue a: kept, whatever retention deletes. */
  | { kind: 'keySetting'; key: 'k1' | 'k2'; limit: number | null; paused: boolean };

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
    key: fc.constantFrom('k1' as const, 'k2' as const, null),
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
      key: r.key,
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
  { arbitrary: fc.constant({ kind: 'pause' as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: 'resume' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('holdJob' as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('holdQueue' as const),
      queue: fc.constantFrom('a' as const, 'b' as const),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('release' as const), pick: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom('apply' as const, 'applyConsuming' as const),
      queue: fc.constantFrom('a' as const, 'b' as const),
      windows: fc.record(
        {
          completed: fc.integer({ min: 1, max: 72 }),
          failed: fc.integer({ min: 1, max: 72 }),
          cancelled: fc.integer({ min: 1, max: 72 }),
          expired: fc.integer({ min: 1, max: 72 }),
          consumedSignals: fc.integer({ min: 1, max: 72 }),
          logsAfterSeconds: fc.integer({ min: 1, max: 72 }),
        },
        { requiredKeys: [] },
      ),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(), subtree: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('keySetting' as const),
      key: fc.constantFrom('k1' as const, 'k2' as const),
      limit: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
      paused: fc.boolean(),
    }),
    weight: 1,
  },
);

/** The model: which rows exist, and what each operation must delete. */
interface MJob extends JobSpec {
  id: string;
  root: string;
  parentId: string | null;
  /** The frozen windows, as the row holds them (the factory writes `{}`). */
  windows: Windows;
}
interface Model {
  now: number;
  jobs: Map<string, MJob>;
  /** Signal name → job id and times. */
  signals: Map<string, { job: string; consumedAt: number | null; purgeAfter: number | null }>;
  /** Lock scope → job id and expiry. */
  locks: Map<string, { job: string; expiresAt: number }>;
  paused: boolean;
  /** Hold id → the tree top it names, or the queue it holds. */
  holds: Map<string, { root: string } | { queue: string }>;
  /** Key of queue a → its override and pause; a key with neither has no row. */
  keySettings: Map<string, { limit: number | null; paused: boolean }>;
  /**
   * Bucket key of limiter 'api' → when its booked turns have passed (hours): the sweep deletes
   * a bucket once they have, never before (a held job's turn is booked in it).
   */
  buckets: Map<string, number>;
  /**
   * Job id → its log lines (job_logs), when each was written and when its own window ends
   * (hours; null: none). Each goes with its job, or before it once its own window passed.
   */
  logLines: Map<string, { loggedAt: number; purgeAfter: number | null }[]>;
  /** Job id → how many run-history events (run_history) it holds: they go with their job alone. */
  historyEvents: Map<string, number>;
  /**
   * Job id → its workflow record: checkpoints with their places (`seq`), a patch marker and a
   * child's start among them, its queue `version`, and the job it was forked from. The
   * checkpoints go with their job alone; a fork's pointer stays as it was when its original goes.
   */
  records: Map<string, { checkpoints: number; version: string | null; forkedFrom: string | null }>;
  /**
   * Callback token id → its job, state and expiry (hours): each goes with its job; a pending or
   * expired one past its expiry goes with a sweep (R15), any other stays while its job does.
   */
  tokens: Map<string, { job: string; state: string; expiresAt: number }>;
  /**
   * Dependency edges (job_dependencies), `dependent>dependency`: they go with their dependent,
   * and a finished dependency stays while a dependent of it is in flight.
   */
  edges: Set<string>;
}

const isFinished = (status: string) => (FINISHED_STATUSES as readonly string[]).includes(status);

/** A hold keeps this tree: it names its top, or holds the queue of one of its members. */
function treeHeld(model: Model, root: string): boolean {
  for (const hold of model.holds.values()) {
    if ('root' in hold && hold.root === root) return true;
    if ('queue' in hold && [...model.jobs.values()].some((j) => j.root === root && j.queue === hold.queue))
      return true;
  }
  return false;
}

/** Windows compared as jsonb compares them: key order does not matter. */
const sameWindows = (a: Windows, b: Windows) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** A dependent in flight still needs this job (`dependsOn`): retention keeps it. */
function needed(model: Model, job: string): boolean {
  for (const edge of model.edges) {
    const [dependent, dependency] = edge.split('>');
    const waiting = model.jobs.get(dependent);
    if (dependency === job && waiting !== undefined && !isFinished(waiting.status)) return true;
  }
  return false;
}

function pinned(model: Model, job: string): boolean {
  for (const lock of model.locks.values()) if (lock.job === job && lock.expiresAt > model.now) return true;
  return false;
}

function trees(model: Model): MJob[][] {
  const byRoot = new Map<string, MJob[]>();
  for (const job of model.jobs.values()) byRoot.set(job.root, [...(byRoot.get(job.root) ?? []), job]);
  return [...byRoot.values()];
}

/** Delete whole trees that pass `deletable` and no hold keeps; returns the jobs deleted. */
function deleteTrees(model: Model, deletable: (job: MJob) => boolean, root?: (job: MJob) => boolean): MJob[] {
  const gone: MJob[] = [];
  for (const tree of trees(model)) {
    const top = tree.find((j) => j.id === j.root) as MJob;
    if ((root && !root(top)) || !tree.every(deletable) || treeHeld(model, top.id)) continue;
    gone.push(...tree);
  }
  removeJobsFromModel(model, gone);
  return gone;
}

function removeJobsFromModel(model: Model, gone: MJob[]): void {
  const ids = new Set(gone.map((j) => j.id));
  for (const id of ids) model.jobs.delete(id);
  for (const [name, s] of model.signals) if (ids.has(s.job)) model.signals.delete(name);
  for (const [scope, l] of model.locks) if (ids.has(l.job)) model.locks.delete(scope);
  for (const id of ids) model.logLines.delete(id);
  for (const [id, token] of model.tokens) if (ids.has(token.job)) model.tokens.delete(id);
  for (const edge of model.edges) if (ids.has(edge.split('>')[0])) model.edges.delete(edge);
}

/** Delete the log lines past their own window, of trees no hold keeps; how many went. */
function sweepLogLines(model: Model): number {
  let deleted = 0;
  for (const [id, lines] of model.logLines) {
    if (treeHeld(model, (model.jobs.get(id) as MJob).root)) continue;
    const kept = lines.filter((line) => line.purgeAfter === null || line.purgeAfter > model.now);
    deleted += lines.length - kept.length;
    model.logLines.set(id, kept);
  }
  return deleted;
}

function modelSweep(model: Model, dryRun: boolean) {
  const target = dryRun ? cloneModel(model) : model;
  if (target.paused && !dryRun)
    return {
      jobs: 0,
      signals: 0,
      logLines: 0,
      uniqueLocks: 0,
      expiredTokens: 0,
      byQueue: new Map<string, number>(),
    };
  const due = (j: MJob) =>
    isFinished(j.status) &&
    j.purgeAfter !== null &&
    j.purgeAfter <= target.now &&
    !pinned(target, j.id) &&
    !needed(target, j.id);
  const jobs = deleteTrees(target, due);
  let signals = 0;
  for (const [name, s] of target.signals) {
    const owner = target.jobs.get(s.job) as MJob;
    if (treeHeld(target, owner.root)) continue;
    if (s.consumedAt !== null && s.purgeAfter !== null && s.purgeAfter <= target.now) {
      target.signals.delete(name);
      signals++;
    }
  }
  const logLines = sweepLogLines(target);
  let uniqueLocks = 0;
  for (const [scope, l] of target.locks) {
    if (l.expiresAt <= target.now) {
      target.locks.delete(scope);
      uniqueLocks++;
    }
  }
  for (const [key, booked] of target.buckets) if (booked <= target.now) target.buckets.delete(key);
  let expiredTokens = 0;
  for (const [id, token] of target.tokens) {
    if ((token.state === 'pending' || token.state === 'expired') && token.expiresAt <= target.now) {
      target.tokens.delete(id);
      expiredTokens++;
    }
  }
  const byQueue = new Map<string, number>();
  for (const j of jobs)
    byQueue.set(`${j.queue}/${j.status}`, (byQueue.get(`${j.queue}/${j.status}`) ?? 0) + 1);
  return { jobs: jobs.length, signals, logLines, uniqueLocks, expiredTokens, byQueue };
}

function cloneModel(model: Model): Model {
  return {
    now: model.now,
    jobs: new Map(model.jobs),
    keySettings: new Map(model.keySettings),
    buckets: new Map(model.buckets),
    logLines: new Map(model.logLines),
    historyEvents: new Map(model.historyEvents),
    records: new Map(model.records),
    tokens: new Map(model.tokens),
    edges: new Set(model.edges),
    signals: new Map(model.signals),
    locks: new Map(model.locks),
    paused: model.paused,
    holds: new Map(model.holds),
  };
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** What an explicit delete must do: the error it refuses with, or the jobs it deletes. */
function modelDelete(model: Model, id: string, subtree: boolean): { refused: ErrorClass } | { gone: MJob[] } {
  const job = model.jobs.get(id) as MJob;
  const members = [job];
  for (let i = 0; i < members.length; i++) {
    for (const j of model.jobs.values()) if (j.parentId === members[i].id) members.push(j);
  }
  if (!subtree && !isFinished(job.status)) return { refused: JobInFlightError };
  if (!subtree && members.length > 1) return { refused: JobHasChildrenError };
  if (members.some((j) => !isFinished(j.status))) return { refused: JobInFlightError };
  for (let up = job.parentId; up !== null; up = (model.jobs.get(up) as MJob).parentId) {
    if (!isFinished((model.jobs.get(up) as MJob).status)) return { refused: AncestorInFlightError };
  }
  if (treeHeld(model, job.root)) return { refused: JobHeldError };
  // A job below the top goes only with its whole tree: a retry of the top would replay it.
  if (job.parentId !== null) return { refused: PartOfWorkflowError };
  return { gone: members };
}

/** Re-freeze a queue's jobs with new windows, as applyRetention does; returns how many changed. */
function modelApply(model: Model, queue: string, windows: Windows): number {
  let changed = 0;
  for (const job of model.jobs.values()) {
    if (job.queue !== queue) continue;
    // Every job of the queue leaves with the policy's windows, and so do its signals and log
    // lines (a row whose window disagreed with its job's gets its job's); a job counts as
    // changed when its own windows did.
    if (!sameWindows(job.windows, windows)) changed++;
    job.windows = windows;
    if (job.finishedAt !== null) {
      const window = windows[job.status as keyof Windows];
      job.purgeAfter = window === undefined ? null : job.finishedAt + window;
    }
    for (const [name, signal] of model.signals) {
      if (signal.job !== job.id || signal.consumedAt === null) continue;
      const purgeAfter =
        windows.consumedSignals === undefined ? null : signal.consumedAt + windows.consumedSignals;
      model.signals.set(name, { ...signal, purgeAfter });
    }
    const window = windows.logsAfterSeconds;
    const lines = model.logLines.get(job.id) ?? [];
    model.logLines.set(
      job.id,
      lines.map((line) => ({ ...line, purgeAfter: window === undefined ? null : line.loggedAt + window })),
    );
  }
  return changed;
}

const toSeconds = (windows: Windows) =>
  Object.fromEntries(Object.entries(windows).map(([key, hours]) => [key, (hours as number) * HOUR]));

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
        key: job.key ?? undefined,
        pins: job.pin === null ? [] : [{ scope, expiresIn: job.pin * HOUR }],
        signals: job.signals.map((s, i) => ({
          name: names[i],
          consumedAt: s.consumedAt === null ? null : s.consumedAt * HOUR,
          purgeAfter: s.purgeAfter === null ? null : s.purgeAfter * HOUR,
        })),
      });
      ids.push(id);
      model.jobs.set(id, {
        ...job,
        id,
        root: ids[0],
        parentId: index === 0 ? null : ids[job.parent % index],
        windows: {},
      });
      for (const [i, signal] of job.signals.entries()) model.signals.set(names[i], { job: id, ...signal });
      if (job.pin !== null) model.locks.set(scope, { job: id, expiresAt: job.pin });
    }
  }
}

/** Dependency edges to add: each a later job (the dependent) on an earlier one, by pick. */
const edgeSpec = fc.array(fc.record({ dependent: fc.nat(), dependency: fc.nat() }), { maxLength: 6 });

/**
 * Add dependency edges between the inserted jobs, as an add with `dependsOn` leaves them: the
 * dependent is the later job, each dependency counts it (`dependents`), and an edge to a
 * finished dependency is settled. No status changes, so nothing is released.
 */
async function insertEdges(
  tm: Tidemark,
  spec: { dependent: number; dependency: number }[],
  model: Model,
): Promise<void> {
  const s = `"${tm.schema}"`;
  const ids = [...model.jobs.keys()].sort((x, y) => Number(x) - Number(y));
  for (const pick of spec) {
    const dependent = ids[pick.dependent % ids.length];
    const dependency = ids[pick.dependency % ids.length];
    const edge = `${dependent}>${dependency}`;
    if (Number(dependency) >= Number(dependent) || model.edges.has(edge)) continue;
    await rawQuery(
      tm,
      `with counted as (
         update ${s}.jobs set dependents = dependents + 1 where id = $2::bigint returning status)
       insert into ${s}.job_dependencies (job_id, dependency_id, settled)
       select $1::bigint, $2::bigint, status in ('completed', 'failed', 'cancelled', 'expired') from counted`,
      [dependent, dependency],
    );
    model.edges.add(edge);
  }
}

/** Jobs of key k1 wait for a turn of limiter 'api': the column goes with the row. */
const heldBy = (key: string | null) => (key === 'k1' ? 'api' : null);

/**
 * Jobs of key k2 were added with a debounce: the fold key is on the row and goes with it,
 * holding nothing back (the model gives it no say in what the sweep deletes).
 */
const foldKey = (key: string | null) => (key === 'k2' ? 'debounce:k2' : null);

/** Buckets of limiter 'api', each with its key and the hour its booked turns have passed. */
const bucketSpec = fc.uniqueArray(
  fc.record({ key: fc.constantFrom('b1', 'b2', 'b3', 'b4'), booked: fc.integer({ min: -3, max: 120 }) }),
  { selector: (b) => b.key, maxLength: 4 },
);

async function insertBuckets(
  tm: Tidemark,
  spec: { key: string; booked: number }[],
  model: Model,
): Promise<void> {
  const s = `"${tm.schema}"`;
  await rawQuery(tm, `update ${s}.jobs set held_by = 'api', held_key = key where key = 'k1'`);
  await rawQuery(tm, `update ${s}.jobs set fold_key = 'debounce:' || key where key = 'k2'`);
  // What handlers say of their jobs: tags, progress and metadata on the row, lines in job_logs.
  await rawQuery(
    tm,
    `update ${s}.jobs set tags = array['t:' || key], progress = '50', metadata = '{"m": 1}' where key = 'k2'`,
  );
  // One to three run-history events per job (a workflow's runs): they stay while their job does.
  const events = await rawQuery<{ id: string; n: number }>(
    tm,
    `with event as (
       insert into ${s}.run_history (job_id, seq, attempt, kind, at, detail)
       select j.id, g, 1, 'step', now(), jsonb_build_object('name', 's' || g)
         from ${s}.jobs j cross join generate_series(1, 1 + (j.id % 3)::int) g
       returning job_id)
     select job_id::text as id, count(*)::int as n from event group by job_id`,
  );
  for (const { id, n } of events) model.historyEvents.set(id, n);
  // A workflow's record: each job gets placed checkpoints (a step, a patch answer, a child's
  // start: one to three), every other job a version, and every third a fork pointer to the job
  // before it (which may be deleted first: the pointer stays).
  const records = await rawQuery<{
    id: string;
    n: number;
    version: string | null;
    forked_from: string | null;
  }>(
    tm,
    `with placed as (
       insert into ${s}.checkpoints (job_id, name, kind, output, seq)
       select j.id, (array['step-a', 'patch:v2', 'child:child#1'])[g], (array['step', 'patch', 'child'])[g], 'true', g
         from ${s}.jobs j cross join generate_series(1, 1 + (j.id % 3)::int) g
       returning job_id),
     stamped as (
       update ${s}.jobs j
          set version = case when j.id % 2 = 0 then 'v' || (j.id % 5) end,
              forked_from = case when j.id % 3 = 0 then j.id - 1 end
        returning j.id, j.version, j.forked_from)
     select st.id::text as id, (select count(*) from placed p where p.job_id = st.id)::int as n,
            st.version, st.forked_from::text as forked_from
       from stamped st`,
  );
  for (const r of records) {
    model.records.set(r.id, { checkpoints: r.n, version: r.version, forkedFrom: r.forked_from });
  }
  // One or two lines per job, written hours ago; the second has a window of its own.
  const logged = await rawQuery<{ id: string; ago: number; window: number | null }>(
    tm,
    `with line as (
       insert into ${s}.job_logs (job_id, attempt, level, message, logged_at, purge_after)
       select j.id, 1, 'info', 'line ' || g, t.at,
              case when g = 2 then t.at + (1 + j.id % 30) * interval '1 hour' end
         from ${s}.jobs j cross join generate_series(1, 1 + (j.id % 2)::int) g
        cross join lateral (select now() - (g + j.id % 7 + 0.5) * interval '1 hour' as at) t
       returning job_id, logged_at, purge_after)
     select job_id::text as id,
            extract(epoch from logged_at - now())::float8 / 3600 as ago,
            extract(epoch from purge_after - logged_at)::float8 / 3600 as window
       from line order by job_id, logged_at`,
  );
  for (const { id, ago, window } of logged) {
    const loggedAt = model.now + Math.round(ago * 2) / 2;
    const lines = model.logLines.get(id) ?? [];
    lines.push({ loggedAt, purgeAfter: window === null ? null : loggedAt + Math.round(window) });
    model.logLines.set(id, lines);
  }
  for (const { key, booked } of spec) {
    await rawQuery(
      tm,
      `insert into ${s}.limiter_buckets (limiter, key, tat, booked)
       values ('api', $1, now() + $2::float8 * interval '1 hour', now() + $2::float8 * interval '1 hour')`,
      [key, half(booked)],
    );
    model.buckets.set(key, half(booked));
  }
}

/**
 * One or two callback tokens per job, in every state, expiring on both sides of now and
 * crossing it as the clock moves by whole hours (every expiry is a whole hour plus a half).
 */
async function insertTokens(tm: Tidemark, model: Model): Promise<void> {
  const made = await rawQuery<{ id: string; job: string; state: string; hours: number }>(
    tm,
    `insert into "${tm.schema}".job_tokens (id, job_id, name, state, expires_at)
     select gen_random_uuid(), j.id, 't' || g,
            (array['pending', 'completed', 'cancelled', 'expired'])[1 + ((j.id + g) % 4)::int],
            now() + (((j.id * 7 + g * 3) % 9) - 3.5) * interval '1 hour'
       from "${tm.schema}".jobs j cross join generate_series(1, 1 + (j.id % 2)::int) g
     returning id::text as id, job_id::text as job, state,
               extract(epoch from expires_at - now())::float8 / 3600 as hours`,
  );
  for (const { id, job, state, hours } of made) {
    model.tokens.set(id, { job, state, expiresAt: model.now + Math.round(hours * 2) / 2 });
  }
}

/** The audit's window in the property test (`audit.retainDays: 1`), in hours. */
const AUDIT_HOURS = 24;

/** Audit rows written hours ago, on both sides of the window and crossing it as the clock moves. */
async function insertAuditRows(tm: Tidemark): Promise<void> {
  await rawQuery(
    tm,
    `insert into "${tm.schema}".audit_log (at, actor, source, action, rows)
     select now() - h * interval '1 hour', 'property', 'api', 'pause-queue', 1
       from unnest(array[0.5, 10.5, 23.5, 24.5, 30.5, 100.5]::float8[]) h`,
  );
}

/** Every audit row with its age in hours, oldest id first. */
function auditAges(tm: Tidemark): Promise<{ id: string; hours: number }[]> {
  return rawQuery<{ id: string; hours: number }>(
    tm,
    `select id::text as id, extract(epoch from now() - at)::float8 / 3600 as hours
       from "${tm.schema}".audit_log order by id`,
  );
}

/**
 * The rows `assertMatches` compares, all read by one statement: a run compares after every
 * step, and twelve statements cost several times what one does. Nothing else writes while it
 * reads, so its one snapshot sees what twelve statements in a row would.
 */
interface Observed {
  orphans: { what: string }[];
  jobs: { id: string; key: string | null; held_by: string | null; fold_key: string | null }[];
  lines: { id: string; windows: (number | null)[] }[];
  history: { id: string; events: number }[];
  records: { id: string; n: number; version: string | null; forked_from: string | null }[];
  edges: { edge: string }[];
  tokens: { id: string }[];
  buckets: { key: string }[];
  settings: { key: string; limit: number | null; paused: boolean }[];
  signals: { name: string }[];
  locks: { scope: string }[];
  windows: { name: string; hours: number | null }[];
}

async function observe(tm: Tidemark): Promise<Observed> {
  const s = `"${tm.schema}"`;
  /** A query's rows as a json array, in the order given. */
  const rows = (query: string, order: string) =>
    `(select coalesce(json_agg(q order by ${order}), '[]'::json) from (${query}) q)`;
  const byId = 'q.id::bigint';
  const [observed] = await rawQuery<Observed>(
    tm,
    `select
       ${rows(
         [
           ...JOB_DEPENDENTS.map(
             (t) =>
               `select '${t} ' || d.job_id as what from ${s}.${t} d where not exists (select 1 from ${s}.jobs j where j.id = d.job_id)`,
           ),
           `select 'child ' || c.id from ${s}.jobs c where c.parent_id is not null and not exists (select 1 from ${s}.jobs p where p.id = c.parent_id)`,
           `select 'member ' || c.id from ${s}.jobs c where c.root_id is not null and not exists (select 1 from ${s}.jobs p where p.id = c.root_id)`,
         ].join(' union all '),
         'q.what',
       )} as orphans,
       ${rows(`select id::text as id, key, held_by, fold_key from ${s}.jobs`, byId)} as jobs,
       ${rows(
         `select j.id::text as id,
                 array(select round(extract(epoch from x.purge_after - x.logged_at) / 3600, 3)::float8
                         from ${s}.job_logs x where x.job_id = j.id order by x.logged_at) as windows
            from ${s}.jobs j`,
         byId,
       )} as lines,
       ${rows(
         `select j.id::text as id, (select count(*) from ${s}.run_history h where h.job_id = j.id)::int as events
            from ${s}.jobs j`,
         byId,
       )} as history,
       ${rows(
         `select j.id::text as id, (select count(*) from ${s}.checkpoints c where c.job_id = j.id and c.seq is not null)::int as n,
                 j.version, j.forked_from::text as forked_from
            from ${s}.jobs j`,
         byId,
       )} as records,
       ${rows(`select job_id || '>' || dependency_id as edge from ${s}.job_dependencies`, 'q.edge')} as edges,
       ${rows(`select id::text as id from ${s}.job_tokens`, 'q.id')} as tokens,
       ${rows(`select key from ${s}.limiter_buckets`, 'q.key')} as buckets,
       ${rows(
         `select key, concurrency as limit, paused from ${s}.key_settings where queue = 'a'`,
         'q.key',
       )} as settings,
       ${rows(`select name from ${s}.signals`, 'q.name')} as signals,
       ${rows(`select scope from ${s}.unique_locks`, 'q.scope')} as locks,
       ${rows(
         `select name, round(extract(epoch from purge_after - consumed_at) / 3600, 3)::float8 as hours
            from ${s}.signals where consumed_at is not null`,
         'q.name',
       )} as windows`,
  );
  return observed;
}

async function assertMatches(tm: Tidemark, model: Model, after: string): Promise<void> {
  const {
    orphans,
    jobs,
    lines,
    history,
    records,
    edges,
    tokens,
    buckets,
    settings,
    signals,
    locks,
    windows,
  } = await observe(tm);
  assert.deepEqual(orphans, [], `rows left without their job (${after})`);
  assert.deepEqual(
    jobs.map((r) => [r.key, r.held_by, r.fold_key]),
    jobs.map((r) => {
      const key = model.jobs.get(r.id)?.key ?? null;
      return [key, heldBy(key), foldKey(key)];
    }),
    `jobs' keys, limiters holding them and debounce keys after ${after}`,
  );
  assert.deepEqual(
    lines.map((r) => r.windows),
    lines.map((r) =>
      (model.logLines.get(r.id) ?? [])
        .toSorted((x, y) => x.loggedAt - y.loggedAt)
        .map((line) => (line.purgeAfter === null ? null : line.purgeAfter - line.loggedAt)),
    ),
    `log lines and their own windows after ${after}: each stays while its job does, until its window passes`,
  );
  assert.deepEqual(
    history.map((r) => r.events),
    history.map((r) => model.historyEvents.get(r.id) ?? 0),
    `run history after ${after}: every event stays while its job does (and leaves with it: no orphans)`,
  );
  assert.deepEqual(
    records.map((r) => ({ checkpoints: r.n, version: r.version, forkedFrom: r.forked_from })),
    records.map((r) => model.records.get(r.id) ?? { checkpoints: 0, version: null, forkedFrom: null }),
    `workflow records after ${after}: placed checkpoints stay while their job does, versions and fork pointers as written`,
  );
  assert.deepEqual(
    edges.map((r) => r.edge).sort(),
    [...model.edges].sort(),
    `dependency edges after ${after}: each stays while its dependent does (a needed dependency with it)`,
  );
  assert.deepEqual(
    tokens.map((r) => r.id).sort(),
    [...model.tokens.keys()].sort(),
    `callback tokens after ${after}: each stays while its job does, but an expired unused one goes with a sweep`,
  );
  assert.deepEqual(
    buckets.map((r) => r.key),
    [...model.buckets.keys()].sort(),
    `limiter buckets after ${after}: a full one goes with the sweep, one with turns booked stays`,
  );
  assert.deepEqual(
    settings,
    [...model.keySettings.entries()].sort().map(([key, setting]) => ({ key, ...setting })),
    `key settings after ${after}: no row for an idle key, none lost while set`,
  );
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
  const expectedWindows = [...model.signals.entries()]
    .filter(([, m]) => m.consumedAt !== null)
    .map(([name, m]) => ({
      name,
      hours: m.purgeAfter === null ? null : m.purgeAfter - (m.consumedAt as number),
    }))
    .sort((x, y) => (x.name < y.name ? -1 : 1));
  assert.deepEqual(windows, expectedWindows, `consumed signals' windows after ${after}`);
}

describeEachDriver('retention against a model (property)', ({ kind, open }) => {
  test('nothing protected is ever deleted; everything due goes by the next full sweep', async () => {
    // The audit keeps a day: its rows cross the window as the clock moves by whole hours.
    const tm = await open({ logger: silentLogger, audit: { retainDays: 1 } });
    tm.createQueue({ name: 'a' });
    tm.createQueue({ name: 'b' });
    await tm.defineLimiter('api', { limit: 10, periodSeconds: 60 });
    try {
      await fc.assert(
        fc.asyncProperty(
          history,
          bucketSpec,
          fc.array(action, { minLength: 1, maxLength: 10 }),
          edgeSpec,
          async (spec, buckets, actions, edgePicks) => {
            await emptyTables(tm);
            await tm.resumeRetention();
            const model: Model = {
              now: 0,
              jobs: new Map(),
              signals: new Map(),
              locks: new Map(),
              paused: false,
              holds: new Map(),
              keySettings: new Map(),
              buckets: new Map(),
              logLines: new Map(),
              historyEvents: new Map(),
              records: new Map(),
              tokens: new Map(),
              edges: new Set(),
            };
            await insertHistory(tm, spec, model);
            await insertEdges(tm, edgePicks, model);
            await insertBuckets(tm, buckets, model);
            await insertTokens(tm, model);
            await insertAuditRows(tm);
            await assertMatches(tm, model, 'insert');
            const finale = [{ kind: 'resume' } as const, { kind: 'sweep', batchSize: 2 } as const];
            for (const [step, act] of [...actions, ...finale].entries()) {
              const label = `step ${step}: ${JSON.stringify(act)}`;
              await runAction(kind, tm, model, act, label);
              await assertMatches(tm, model, label);
            }
          },
        ),
        { numRuns: 60 },
      );
    } finally {
      await closeConsumingSession();
    }
  });
});

/** Every table a run writes, emptied before the next run. */
const RUN_TABLES = [
  'jobs',
  'retention_holds',
  'key_settings',
  'limiter_buckets',
  'audit_log',
  ...JOB_DEPENDENTS,
];

/**
 * Deleted rather than truncated: a run leaves a few dozen rows, and a truncate gives each of
 * the tables and its indexes new files, about ten times the work of deleting them.
 */
async function emptyTables(tm: Tidemark): Promise<void> {
  const deletes = RUN_TABLES.map((t, i) => `d${i} as (delete from "${tm.schema}".${t})`);
  await rawQuery(tm, `with ${deletes.join(', ')} select 1`);
}

/** Run one action on the engine and on the model, and compare what each says it did. */
async function runAction(
  kind: DriverKind,
  tm: Tidemark,
  model: Model,
  act: Action,
  label: string,
): Promise<void> {
  const ids = [...model.jobs.keys()].sort((x, y) => Number(x) - Number(y));
  switch (act.kind) {
    case 'clock':
      await passTime(tm, act.hours * HOUR);
      model.now += act.hours;
      return;
    case 'sweep':
    case 'dryRun': {
      const expected = modelSweep(model, act.kind === 'dryRun');
      const audit = await auditAges(tm);
      const got =
        act.kind === 'sweep'
          ? await tm.sweep({ batchSize: act.batchSize })
          : await tm.sweep({ dryRun: true });
      const kept = audit.filter((r) => act.kind === 'dryRun' || model.paused || r.hours < AUDIT_HOURS);
      assert.deepEqual(
        (await auditAges(tm)).map((r) => r.id),
        kept.map((r) => r.id),
        `audit rows after ${label}: those older than the audit's window go with a sweep, the rest stay (a pause keeps all)`,
      );
      if (!('dryRun' in got)) assert.equal(got.auditRows ?? 0, audit.length - kept.length, label);
      assert.deepEqual(
        {
          jobs: got.jobs,
          signals: got.signals,
          logLines: got.logLines ?? 0,
          uniqueLocks: got.uniqueLocks,
          expiredTokens: 'dryRun' in got ? 0 : (got.expiredTokens ?? 0),
          paused: got.paused === true,
        },
        {
          jobs: expected.jobs,
          signals: expected.signals,
          logLines: expected.logLines,
          uniqueLocks: expected.uniqueLocks,
          expiredTokens: act.kind === 'dryRun' ? 0 : expected.expiredTokens,
          paused: model.paused,
        },
        label,
      );
      assert.deepEqual(
        new Map(got.byQueue.map((r) => [`${r.queue}/${r.status}`, r.count])),
        expected.byQueue,
        label,
      );
      return;
    }
    case 'purge': {
      const statuses = act.statuses ?? [...FINISHED_STATUSES];
      const options = {
        ...(act.queue === undefined ? {} : { queue: act.queue }),
        statuses,
        olderThanSeconds: act.olderThanHours * HOUR,
        batchSize: 2,
      };
      if (model.paused) {
        await assert.rejects(tm.removeJobs(options), RetentionPausedError, label);
        return;
      }
      const cutoff = model.now - act.olderThanHours;
      const gone = deleteTrees(
        model,
        (j) =>
          statuses.includes(j.status) &&
          j.finishedAt !== null &&
          j.finishedAt <= cutoff &&
          !pinned(model, j.id) &&
          !needed(model, j.id),
        (top) => act.queue === undefined || top.queue === act.queue,
      );
      assert.equal(await tm.removeJobs(options), gone.length, label);
      return;
    }
    case 'pause':
      await tm.pauseRetention({ reason: 'property' });
      model.paused = true;
      return;
    case 'resume':
      await tm.resumeRetention();
      model.paused = false;
      return;
    case 'holdJob': {
      if (ids.length === 0) return;
      const id = ids[act.pick % ids.length];
      const { holdId } = await tm.holdJobs({ ids: [id], reason: 'property' });
      model.holds.set(holdId, { root: (model.jobs.get(id) as MJob).root });
      return;
    }
    case 'holdQueue': {
      const { holdId } = await tm.holdJobs({ queue: act.queue, reason: 'property' });
      model.holds.set(holdId, { queue: act.queue });
      return;
    }
    case 'release': {
      const holds = [...model.holds.keys()];
      if (holds.length === 0) return;
      const holdId = holds[act.pick % holds.length];
      await tm.releaseHold(holdId);
      model.holds.delete(holdId);
      return;
    }
    case 'apply': {
      const expected = modelApply(model, act.queue, act.windows);
      const got = await tm.applyRetention({ queue: act.queue, policy: toSeconds(act.windows), batchSize: 2 });
      assert.equal(got.jobs, expected, label);
      return;
    }
    case 'applyConsuming': {
      await applyWhileConsuming(kind, tm, model, act, label);
      return;
    }
    case 'keySetting': {
      await tm.setKeyLimit('a', act.key, act.limit === null ? null : { concurrency: act.limit });
      await (act.paused ? tm.pauseKey('a', act.key) : tm.resumeKey('a', act.key));
      if (act.limit === null && !act.paused) model.keySettings.delete(act.key);
      else model.keySettings.set(act.key, { limit: act.limit, paused: act.paused });
      return;
    }
    case 'delete': {
      if (ids.length === 0) return;
      const id = ids[act.pick % ids.length];
      const expected = modelDelete(model, id, act.subtree);
      const call = () => (act.subtree ? tm.deleteWorkflowSubtree(id) : tm.deleteJob(id));
      if ('refused' in expected) {
        await assert.rejects(call(), (error: unknown) => error?.constructor === expected.refused, label);
        return;
      }
      await call();
      removeJobsFromModel(model, expected.gone);
      return;
    }
  }
}

let signalNames = 0;

/**
 * The second session applyWhileConsuming consumes on (PostgreSQL only), kept from one action
 * to the next: each needs a session apart from the engine's, not a new one.
 */
let consumer: pg.Client | null = null;

async function consumingSession(): Promise<pg.Client> {
  if (!consumer) {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    consumer = client;
  }
  return consumer;
}

async function closeConsumingSession(): Promise<void> {
  const client = consumer;
  consumer = null;
  await client?.end();
}

/**
 * A running job of the queue consumes a signal (the statement a workflow's wait runs) while
 * applyRetention re-freezes the queue. On PostgreSQL the consumption runs on a second
 * connection and stays uncommitted until the apply has either finished or waits for it;
 * PGlite is one session, where the two cannot interleave, so it consumes first. Either way
 * the signal must end with the window its job has after the apply.
 */
async function applyWhileConsuming(
  kind: DriverKind,
  tm: Tidemark,
  model: Model,
  act: Extract<Action, { kind: 'applyConsuming' }>,
  label: string,
): Promise<void> {
  const name = `c${++signalNames}`;
  const id = await insertJob(tm, { queue: act.queue, status: 'active', signals: [{ name }] });
  const job: MJob = {
    status: 'active',
    queue: act.queue,
    finishedAt: null,
    purgeAfter: null,
    pin: null,
    signals: [],
    parent: 0,
    key: null,
    id,
    root: id,
    parentId: null,
    windows: {},
  };
  model.jobs.set(id, job);
  const token = randomUUID();
  await rawQuery(tm, `update "${tm.schema}".jobs set lock_token = $1::uuid where id = $2::bigint`, [
    token,
    id,
  ]);
  const consume = {
    text: consumeSignals.text(tm.schema),
    values: consumeSignals.values({ id, token, names: [name], count: 1, wait_key: 'wait:property' }),
  };
  const expected = modelApply(model, act.queue, act.windows);
  const apply = () => tm.applyRetention({ queue: act.queue, policy: toSeconds(act.windows), batchSize: 2 });
  let got: Awaited<ReturnType<typeof apply>>;
  if (kind === 'pg') {
    const client = await consumingSession();
    let committed = false;
    try {
      await client.query('begin');
      const [consumed] = (await client.query(consume.text, consume.values)).rows;
      assert.notEqual(consumed.output, null, `${label}: the signal was not consumed`);
      const [{ pid }] = (await client.query('select pg_backend_pid() as pid')).rows;
      let settled = false;
      const outcome = apply().finally(() => {
        settled = true;
      });
      outcome.catch(() => {});
      // Until the apply has finished, or waits on the consuming transaction.
      for (;;) {
        if (settled) break;
        const [row] = await rawQuery<{ n: number }>(
          tm,
          'select count(*)::int as n from pg_stat_activity where $1::int = any(pg_blocking_pids(pid))',
          [pid],
        );
        if (row.n > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await client.query('commit');
      committed = true;
      got = await outcome;
    } finally {
      // A session left inside its transaction is closed, which rolls it back.
      if (!committed) await closeConsumingSession();
    }
  } else {
    const [consumed] = await rawQuery<{ output: unknown }>(tm, consume.text, consume.values);
    assert.notEqual(consumed.output, null, `${label}: the signal was not consumed`);
    got = await apply();
  }
  assert.equal(got.jobs, expected, label);
  const window = job.windows.consumedSignals;
  model.signals.set(name, {
    job: id,
    consumedAt: model.now,
    purgeAfter: window === undefined ? null : model.now + window,
  });
}
