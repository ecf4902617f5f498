import type { Driver, Queryable } from './driver/driver.js';
import { RetentionControls } from './retention-controls.js';
import { PostgresRetention, type RetentionCapability } from './retention-storage.js';
import { retryOnDeadlock } from './retry-deadlock.js';
import { type FrozenRetention, type Job, type JobRow, toClaimedJob, toJob } from './rows.js';
import { channelOf } from './schema-name.js';
import type { Query } from './sql/define-query.js';
import * as actions from './sql/job-actions.js';
import * as jobs from './sql/jobs.js';
import * as maintenance from './sql/maintenance.js';
import * as queues from './sql/queues.js';
import type { QueueDefaultParams } from './sql/stored-queue.js';
import * as worker from './sql/worker.js';

/** One row of an insert batch, already validated and resolved. */
export interface InsertRow {
  queue: string;
  /** The job's data as JSON text (already validated), embedded as it is. */
  dataText: string;
  priority: number;
  /** Absent: the queue's stored option, read by the insert (the queue is not defined in this process). */
  max_attempts?: number;
  run_at?: string;
  delay_seconds?: number;
  expire_in_seconds?: number;
  /** Absent: the queue's stored policy, read by the insert, else `InsertDefaults.retention`. */
  retention?: FrozenRetention;
  unique_key?: string;
  parent_id?: string;
  root_id?: string;
  parent_step?: string;
}

/** What a job gets when neither it, nor its queue as defined here or as stored, sets an option. */
export interface InsertDefaults {
  retention: FrozenRetention;
  maxAttempts: number;
}

/** A claimed attempt: the job plus the token that proves ownership. */
export interface ClaimedJob {
  job: Job;
  token: string;
  pickupLatencyMs: number;
  /** The wait it was woken from, when it resumes a suspended workflow. */
  wait: Record<string, unknown> | null;
}

/** The outcome of one attempt, for the batched finishing write. */
export interface AttemptOutcome {
  id: string;
  token: string;
  ok: boolean;
  output?: string | null;
  error?: string | null;
  /** Seconds until the retry; null: not retryable. */
  retryDelaySeconds?: number | null;
  dropCheckpoints?: boolean;
}

/**
 * The semantic storage layer: every database operation Tidemark performs, each one
 * statement from `sql/`, the same on both drivers. It never logs; callers do.
 */
export class Storage {
  readonly channel: string;
  /** The optional retention capability (deleting due rows); see RetentionCapability. */
  readonly retention?: RetentionCapability;
  /** The pause switch, holds and explicit deletes, and the gate that orders them. */
  readonly controls: RetentionControls;

  /**
   * @param hasRetention whether this storage offers the retention capability (deleting due
   * rows). Without it everything else works and workers run no sweep.
   */
  constructor(
    readonly driver: Driver,
    readonly schema: string,
    hasRetention = true,
  ) {
    this.channel = channelOf(schema);
    this.controls = new RetentionControls(this);
    if (hasRetention) this.retention = new PostgresRetention(this);
  }

  get hasRetention(): boolean {
    return this.retention !== undefined;
  }

  /** Run a query on the driver or on a given transaction/caller handle. */
  async run<P extends Record<string, unknown>, Row = Record<string, unknown>>(
    query: Query<P>,
    params: P,
    on: Queryable = this.driver,
  ): Promise<Row[]> {
    const result = await on.query<Row>(
      { text: query.text(this.schema), name: query.statementName(this.schema) },
      query.values(params),
    );
    return result.rows;
  }

  // queues

  async upsertQueue(name: string, options: unknown): Promise<void> {
    await this.run(queues.upsertQueue, { name, options: JSON.stringify(options) });
  }

  async getQueue(
    name: string,
    on?: Queryable,
  ): Promise<{ name: string; options: Record<string, unknown>; paused: boolean } | null> {
    const rows = await this.run<
      { name: string },
      { name: string; options: Record<string, unknown>; paused: boolean }
    >(queues.getQueue, { name }, on);
    return rows[0] ?? null;
  }

  async listQueues(): Promise<{ name: string; options: Record<string, unknown>; paused: boolean }[]> {
    return this.run(queues.listQueues, {});
  }

  async setQueuePaused(name: string, paused: boolean): Promise<boolean> {
    const rows = await this.run(queues.setQueuePaused, { name, paused, channel: this.channel });
    return rows.length > 0;
  }

  // jobs

  /** Insert a batch; returns, in input order, each row's id and whether it was inserted. */
  async insertJobs(
    rows: InsertRow[],
    defaults: InsertDefaults,
    on?: Queryable,
  ): Promise<{ id: string; inserted: boolean }[]> {
    const policies: string[] = [];
    const byText = new Map<string, number>();
    // Rows of one batch usually share one retention object: serialise each object once.
    const byObject = new Map<object, number>();
    const policyOf = (retention: FrozenRetention | undefined) => {
      if (retention === undefined) return null;
      let policy = byObject.get(retention);
      if (policy !== undefined) return policy;
      const text = JSON.stringify(retention);
      policy = byText.get(text);
      if (policy === undefined) {
        policy = policies.length;
        policies.push(text);
        byText.set(text, policy);
      }
      byObject.set(retention, policy);
      return policy;
    };
    const input = rows.map((row, idx) =>
      insertRowJson(row, `"idx":${idx},"policy":${policyOf(row.retention)},`),
    );
    const params: jobs.InsertJobsParams = {
      jobs: `[${input.join(',')}]`,
      policies: `[${policies.join(',')}]`,
      channel: this.channel,
      ...defaultParams(defaults),
    };
    if (rows.some((row) => row.unique_key !== undefined)) {
      const result = await this.run<typeof params, { id: string; inserted: boolean }>(
        jobs.insertJobs,
        params,
        on,
      );
      return result.map((r) => ({ id: String(r.id), inserted: r.inserted }));
    }
    // Every row is inserted, and ids are drawn in input order: the n-th smallest id is the
    // n-th row's.
    const ids = await this.run<typeof params, { id: string }>(jobs.insertPlainJobs, params, on);
    if (ids.length !== rows.length) {
      throw new Error(`insert returned ${ids.length} ids for ${rows.length} jobs`);
    }
    return ids.map((r) => ({ id: String(r.id), inserted: true }));
  }

  async findUniqueHolder(queue: string, uniqueKey: string, on?: Queryable): Promise<string | null> {
    const rows = await this.run<{ queue: string; unique_key: string }, { id: string }>(
      jobs.findUniqueHolder,
      { queue, unique_key: uniqueKey },
      on,
    );
    return rows[0] ? String(rows[0].id) : null;
  }

  /** Insert one job behind a unique lock; null when a live lock holds the scope. */
  async insertJobWithLock(
    row: InsertRow,
    scope: string,
    ttlSeconds: number,
    defaults: InsertDefaults,
    on?: Queryable,
  ): Promise<string | null> {
    const rows = await this.run<Parameters<typeof jobs.insertJobWithLock.values>[0], { id: string }>(
      jobs.insertJobWithLock,
      {
        job: insertRowJson(row, retentionField(row)),
        scope,
        ttl_seconds: ttlSeconds,
        channel: this.channel,
        ...defaultParams(defaults),
      },
      on,
    );
    return rows[0] ? String(rows[0].id) : null;
  }

  async findLockHolder(scope: string, on?: Queryable): Promise<string | null> {
    const rows = await this.run<{ scope: string }, { id: string }>(jobs.findLockHolder, { scope }, on);
    return rows[0] ? String(rows[0].id) : null;
  }

  async getJob(id: string, on?: Queryable): Promise<Job | null> {
    const rows = await this.run<{ id: string }, JobRow>(jobs.getJob, { id }, on);
    return rows[0] ? toJob(rows[0]) : null;
  }

  async getStatuses(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.run<{ ids: string[] }, { id: string; status: string }>(jobs.getStatuses, { ids });
    return new Map(rows.map((r) => [String(r.id), r.status]));
  }

  async listChildren(id: string): Promise<Job[]> {
    const rows = await this.run<{ id: string }, JobRow>(jobs.listChildren, { id });
    return rows.map(toJob);
  }

  // worker

  async claimJobs(
    queueNames: string[],
    limit: number,
    workerId: string,
    lockSeconds: number,
  ): Promise<ClaimedJob[]> {
    const rows = await this.run<Parameters<typeof worker.claimJobs.values>[0], JobRow>(worker.claimJobs, {
      queues: queueNames,
      limit,
      worker: workerId,
      lock_seconds: lockSeconds,
    });
    return rows.map((row) => ({
      job: toClaimedJob(row, workerId, lockSeconds),
      token: row.lock_token as string,
      pickupLatencyMs: (row.started_at as number) - (row.run_at as number),
      wait: (row.wait ?? null) as Record<string, unknown> | null,
    }));
  }

  /** Record many outcomes in one statement; returns the ids that were still owned, with their new status. */
  async finishAttempts(outcomes: AttemptOutcome[]): Promise<Map<string, string>> {
    const rows = await this.run<{ outcomes: string }, { id: string; status: string }>(worker.finishAttempts, {
      outcomes: outcomesJson(outcomes),
    });
    return new Map(rows.map((r) => [String(r.id), r.status]));
  }

  /** Complete one attempt on `tx` (a transaction the caller's completion code shares). */
  async completeOne(
    tx: Queryable,
    id: string,
    token: string,
    output: string | null,
    dropCheckpoints: boolean,
  ) {
    const rows = await this.run(
      worker.completeOne,
      { id, token, output, drop_checkpoints: dropCheckpoints },
      tx,
    );
    return rows.length > 0;
  }

  /** Extend the locks of these attempts; returns the lock tokens still held. */
  async extendLocks(ids: string[], tokens: string[], lockSeconds: number): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.run<Parameters<typeof worker.extendLocks.values>[0], { token: string }>(
      worker.extendLocks,
      {
        ids,
        tokens,
        lock_seconds: lockSeconds,
      },
    );
    return new Set(rows.map((r) => r.token));
  }

  async suspendJob(
    id: string,
    token: string,
    wait: Record<string, unknown>,
    wakeAt: Date | null,
  ): Promise<boolean> {
    const rows = await this.run(worker.suspendJob, {
      id,
      token,
      wait: JSON.stringify(wait),
      wake_at: wakeAt,
    });
    return rows.length > 0;
  }

  async releaseJobs(ids: string[], tokens: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await this.run(worker.releaseJobs, { ids, tokens });
    return rows.length;
  }

  // operator actions

  async cancelSubtree(id: string): Promise<string[]> {
    const rows = await retryOnDeadlock(() =>
      this.run<{ id: string; channel: string }, { id: string }>(actions.cancelSubtree, {
        id,
        channel: this.channel,
      }),
    );
    return rows.map((r) => String(r.id));
  }

  async retrySubtree(id: string): Promise<string[]> {
    const rows = await retryOnDeadlock(() =>
      this.run<{ id: string; channel: string }, { id: string }>(actions.retrySubtree, {
        id,
        channel: this.channel,
      }),
    );
    return rows.map((r) => String(r.id));
  }

  async pauseJob(id: string): Promise<boolean> {
    return (await this.run(actions.pauseJob, { id })).length > 0;
  }

  async resumeJob(id: string): Promise<boolean> {
    return (await this.run(actions.resumeJob, { id, channel: this.channel })).length > 0;
  }

  // maintenance

  /** True when this caller won the service's turn for the current interval, cluster-wide. */
  async takeTurn(name: string, intervalSeconds: number): Promise<boolean> {
    return this.driver.transaction(async (tx) => {
      const [lock] = await this.run<{ key: string }, { locked: boolean }>(
        maintenance.tryAdvisoryLock,
        { key: `tidemark:${this.schema}:${name}` },
        tx,
      );
      if (!lock?.locked) return false;
      const rows = await this.run(maintenance.takeTurn, { name, interval_seconds: intervalSeconds }, tx);
      return rows.length > 0;
    });
  }

  async recordTurnResult(name: string, result: unknown): Promise<void> {
    await this.run(maintenance.recordTurnResult, { name, result: JSON.stringify(result) });
  }

  async readTurn(name: string): Promise<{ lastRunAt: Date | null; lastResult: unknown } | null> {
    const rows = await this.run<{ name: string }, { last_run_at: Date | null; last_result: unknown }>(
      maintenance.readTurn,
      { name },
    );
    return rows[0] ? { lastRunAt: rows[0].last_run_at, lastResult: rows[0].last_result } : null;
  }

  async recoverStalled(limit: number): Promise<number> {
    const [row] = await this.run<{ limit: number; channel: string }, { n: number }>(
      maintenance.recoverStalled,
      {
        limit,
        channel: this.channel,
      },
    );
    return Number(row?.n ?? 0);
  }

  async expireJobs(limit: number): Promise<number> {
    return (await this.run(maintenance.expireJobs, { limit })).length;
  }

  async promoteRetries(limit: number): Promise<number> {
    return (await this.run(maintenance.promoteRetries, { limit })).length;
  }

  async nudgeDueQueues(sinceSeconds: number): Promise<void> {
    await this.run(maintenance.nudgeDueQueues, { since_seconds: sinceSeconds, channel: this.channel });
  }
}

/**
 * The outcomes as one JSON array. Ids are digits and tokens UUIDs (both from the database);
 * outputs and errors are JSON text already, so they are embedded without parsing them again.
 */
function outcomesJson(outcomes: AttemptOutcome[]): string {
  const parts = new Array<string>(outcomes.length);
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i];
    const delay = o.retryDelaySeconds;
    parts[i] =
      `{"id":${o.id},"token":"${o.token}","ok":${o.ok},"output":${o.output ?? 'null'},` +
      `"error":${o.error ?? 'null'},"retry_delay":${typeof delay === 'number' && Number.isFinite(delay) ? delay : 'null'},` +
      `"drop_checkpoints":${o.dropCheckpoints === true}}`;
  }
  return `[${parts.join(',')}]`;
}

/** The parameters the statements read a stored queue's defaults from (sql/stored-queue.ts). */
export function defaultParams(defaults: InsertDefaults): QueueDefaultParams {
  return {
    fallback_retention: JSON.stringify(defaults.retention),
    default_max_attempts: defaults.maxAttempts,
  };
}

/** A single row's retention as a JSON field (null: the queue's stored policy). */
export function retentionField(row: InsertRow): string {
  return `"retention":${row.retention === undefined ? 'null' : JSON.stringify(row.retention)},`;
}

/** The columns of an insert row, as the SQL reads them (data and retention go separately). */
const INSERT_FIELDS = [
  'queue',
  'priority',
  'max_attempts',
  'run_at',
  'delay_seconds',
  'expire_in_seconds',
  'unique_key',
  'parent_id',
  'root_id',
  'parent_step',
] as const;

/**
 * One insert row as JSON text, its data text embedded as it is rather than parsed and
 * serialised again. Written field by field: a bulk add builds a thousand of these per
 * statement, and object rest and spread were most of its cost.
 */
export function insertRowJson(row: InsertRow, extra = ''): string {
  let text = `{${extra}"data":${row.dataText}`;
  for (const field of INSERT_FIELDS) {
    const value = row[field];
    if (value !== undefined) text += `,"${field}":${JSON.stringify(value)}`;
  }
  return `${text}}`;
}
