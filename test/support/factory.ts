import type { FrozenRetention, JobStatus, Tidemark } from '../../src/index.js';
import { rawQuery } from './databases.js';

/**
 * Rows written straight into Tidemark's tables, skipping the API, to set up retention
 * cases in any state. Times are seconds relative to the database's `now()`: negative is
 * in the past (`finishedAt: -3600` finished an hour ago; `purgeAfter: -1` is due).
 */
export interface FactoryJob {
  queue?: string;
  status: JobStatus;
  data?: unknown;
  /** Default: `-1` for finished statuses, null for in-flight ones. */
  finishedAt?: number | null;
  /**
   * When the job becomes due. Default: `finishedAt + window(status)` from `retention`
   * (null when kept forever), the way the finishing write computes it.
   */
  purgeAfter?: number | null;
  /** Frozen windows; default `{}` (kept forever) unless `purgeAfter` says otherwise. */
  retention?: FrozenRetention;
  /** Parent job id; the root is taken from the parent. */
  parentId?: string;
  /** The job's concurrency key. */
  key?: string;
  /** Unique locks (idempotency windows) that reference this job. */
  pins?: { expiresIn: number; scope?: string }[];
  signals?: FactorySignal[];
  /** Checkpoint names to store for the job. */
  checkpoints?: string[];
  /** Schedule fires (schedule name) that created the job. */
  scheduleFires?: string[];
}

/** A signal: pending when `consumedAt` is absent or null. */
export interface FactorySignal {
  name?: string;
  consumedAt?: number | null;
  /** Default: consumedAt + retention.consumedSignals, or null. */
  purgeAfter?: number | null;
}

const FINISHED = new Set(['completed', 'failed', 'cancelled', 'expired']);
let scopes = 0;

/** Insert one job (with its pins, signals, checkpoints and fires); returns its id. */
export async function insertJob(tm: Tidemark, spec: FactoryJob): Promise<string> {
  const s = `"${tm.schema}"`;
  const finished = FINISHED.has(spec.status);
  const finishedAt = spec.finishedAt === undefined ? (finished ? -1 : null) : spec.finishedAt;
  const retention = spec.retention ?? {};
  const window = (retention as Record<string, number | undefined>)[spec.status];
  const purgeAfter =
    spec.purgeAfter !== undefined
      ? spec.purgeAfter
      : finished && finishedAt !== null && window
        ? finishedAt + window
        : null;
  let rootId: string | null = null;
  if (spec.parentId !== undefined) {
    const [parent] = await rawQuery<{ root: string }>(
      tm,
      `select coalesce(root_id, id)::text as root from ${s}.jobs where id = $1::bigint`,
      [spec.parentId],
    );
    if (!parent) throw new Error(`factory: parent ${spec.parentId} does not exist`);
    rootId = parent.root;
  }
  const [row] = await rawQuery<{ id: string }>(
    tm,
    `insert into ${s}.jobs (queue, status, data, finished_at, purge_after, retention, parent_id, root_id,
                            parent_step, attempts, locked_until, lock_token, key)
     values ($1, $2, $3::jsonb, now() + $4::float8 * interval '1 second', now() + $5::float8 * interval '1 second',
             $6::jsonb, $7::bigint, $8::bigint, case when $7::bigint is null then null else 'step-' || gen_random_uuid() end,
             case when $2 in ('pending', 'paused') then 0 else 1 end,
             case when $2 = 'active' then now() - interval '1 hour' end,
             case when $2 = 'active' then gen_random_uuid() end, $9)
     returning id::text as id`,
    [
      spec.queue ?? 'q',
      spec.status,
      JSON.stringify(spec.data ?? null),
      finishedAt,
      purgeAfter,
      JSON.stringify(retention),
      spec.parentId ?? null,
      rootId,
      spec.key ?? null,
    ],
  );
  const id = row.id;
  for (const pin of spec.pins ?? []) {
    await rawQuery(
      tm,
      `insert into ${s}.unique_locks (scope, job_id, expires_at) values ($1, $2::bigint, now() + $3::float8 * interval '1 second')`,
      [pin.scope ?? `factory:${process.pid}:${++scopes}`, id, pin.expiresIn],
    );
  }
  for (const signal of spec.signals ?? []) {
    const consumedAt = signal.consumedAt ?? null;
    const signalWindow = retention.consumedSignals;
    const signalPurge =
      signal.purgeAfter !== undefined
        ? signal.purgeAfter
        : consumedAt !== null && signalWindow
          ? consumedAt + signalWindow
          : null;
    await rawQuery(
      tm,
      `insert into ${s}.signals (job_id, name, payload, consumed_at, consumed_by, purge_after)
       values ($1::bigint, $2, '{}'::jsonb, now() + $3::float8 * interval '1 second',
               case when $3::float8 is null then null else 'wait:factory' end,
               now() + $4::float8 * interval '1 second')`,
      [id, signal.name ?? 'go', consumedAt, signalPurge],
    );
  }
  for (const name of spec.checkpoints ?? []) {
    await rawQuery(
      tm,
      `insert into ${s}.checkpoints (job_id, name, output) values ($1::bigint, $2, '{"ok":true}'::jsonb)`,
      [id, name],
    );
  }
  for (const schedule of spec.scheduleFires ?? []) {
    await rawQuery(
      tm,
      `insert into ${s}.schedule_fires (schedule_name, fire_at, job_id) values ($1, now() - random() * interval '1 day', $2::bigint)`,
      [schedule, id],
    );
  }
  return id;
}

/**
 * Insert a tree: the root, then each child under the node named by `parent` (an index into
 * the ids returned so far; 0 is the root). Returns the ids in input order.
 */
export async function insertTree(
  tm: Tidemark,
  root: FactoryJob,
  children: (FactoryJob & { parent?: number })[] = [],
): Promise<string[]> {
  const ids = [await insertJob(tm, root)];
  for (const child of children) {
    const { parent = 0, ...spec } = child;
    ids.push(await insertJob(tm, { ...spec, parentId: ids[parent] }));
  }
  return ids;
}

/**
 * Let time pass: move every retention-relevant timestamp `seconds` into the past, which is
 * the same, for retention, as the clock moving forward.
 */
export async function passTime(tm: Tidemark, seconds: number): Promise<void> {
  const s = `"${tm.schema}"`;
  const shift = [seconds];
  await rawQuery(
    tm,
    `update ${s}.jobs set finished_at = finished_at - $1::float8 * interval '1 second',
                          purge_after = purge_after - $1::float8 * interval '1 second'
      where finished_at is not null or purge_after is not null`,
    shift,
  );
  await rawQuery(
    tm,
    `update ${s}.signals set consumed_at = consumed_at - $1::float8 * interval '1 second',
                             purge_after = purge_after - $1::float8 * interval '1 second'
      where consumed_at is not null or purge_after is not null`,
    shift,
  );
  await rawQuery(
    tm,
    `update ${s}.job_logs set logged_at = logged_at - $1::float8 * interval '1 second',
                              purge_after = purge_after - $1::float8 * interval '1 second'`,
    shift,
  );
  await rawQuery(
    tm,
    `update ${s}.unique_locks set expires_at = expires_at - $1::float8 * interval '1 second'`,
    shift,
  );
  await rawQuery(
    tm,
    `update ${s}.limiter_buckets set tat = tat - $1::float8 * interval '1 second',
                                     booked = booked - $1::float8 * interval '1 second'`,
    shift,
  );
  await rawQuery(tm, `update ${s}.audit_log set at = at - $1::float8 * interval '1 second'`, shift);
  await rawQuery(
    tm,
    `update ${s}.job_tokens set expires_at = expires_at - $1::float8 * interval '1 second'`,
    shift,
  );
}

/** Ids of the jobs that exist, sorted. */
export async function existingJobs(tm: Tidemark): Promise<string[]> {
  const rows = await rawQuery<{ id: string }>(
    tm,
    `select id::text as id from "${tm.schema}".jobs order by id`,
  );
  return rows.map((r) => r.id);
}

/** Whether a job row exists. */
export async function jobExists(tm: Tidemark, id: string): Promise<boolean> {
  const rows = await rawQuery(tm, `select 1 from "${tm.schema}".jobs where id = $1::bigint`, [id]);
  return rows.length > 0;
}
