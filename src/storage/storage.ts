import { atomically } from './atomically.js';
import * as attempts from './attempts.js';
import * as audit from './audit.js';
import * as bulk from './bulk.js';
import type { Driver, Queryable, Subscription, TransactionHandle } from './driver/driver.js';
import { runOwnTransaction } from './driver/own-transaction.js';
import * as actions from './job-actions.js';
import * as jobs from './jobs.js';
import * as keys from './keys.js';
import * as limiters from './limiters.js';
import * as maintenance from './maintenance.js';
import * as notes from './notes.js';
import * as queues from './queues.js';
import * as charts from './reads/charts.js';
import * as jobList from './reads/job-list.js';
import * as jobQuery from './reads/job-query.js';
import * as jobViews from './reads/job-views.js';
import * as overview from './reads/overview.js';
import * as running from './reads/running.js';
import * as tables from './reads/tables.js';
import type { Gated } from './retention-controls.js';
import * as controls from './retention-controls.js';
import type { RetentionCapability } from './retention-storage.js';
import * as retention from './retention-storage.js';
import { type Operations, operations, Runner } from './runner.js';
import * as schedules from './schedules.js';
import { registerRunner } from './storage-internals.js';
import { listSweepRecords } from './sweep-history.js';
import * as testKit from './test-kit.js';
import * as tokens from './token-storage.js';
import * as workers from './workers.js';
import * as workflow from './workflow-storage.js';

export type { AttemptOutcome, ClaimedJob, OutcomeExceptions } from './attempts.js';
export type { AuditWindow } from './audit.js';
export type { BulkWindow } from './bulk.js';
export { isConnectionError, isRefusal, isStatementCancelled } from './database-errors.js';
// The door's types: what the parts above storage name, without reaching past this module.
export { type CallerTransaction, wrapCallerTransaction } from './driver/caller-transaction.js';
export type { DatabaseOption, PgliteInstance } from './driver/create-driver.js';
export type { Queryable, Subscription, TransactionHandle } from './driver/driver.js';
export { checkTransactionCallback } from './driver/own-transaction.js';
export type { InsertDefaults, InsertRow } from './insert-rows.js';
export type { KeyRow } from './keys.js';
export type { TokenRequest, TokenVerdictRow } from './limiters.js';
export type { JobLogRow, JobNotes, LogLine, NotesWritten } from './notes.js';
export type { StoredQueue } from './queues.js';
export type { CarriedRetentionRow, QueueChartRow } from './reads/charts.js';
export type { FinishedListRow, JobListRow, ListWalk, ListWindow } from './reads/job-list.js';
export type { QueryOrder, QueryPath, QueryWindow } from './reads/job-query.js';
export type { AttemptEntry, RunRecord, TreeNode, WorkflowViewRow } from './reads/job-views.js';
export type { BoundedCountRow, DueSplitRow, JobEstimatesRow } from './reads/overview.js';
export type { RunningJobRow } from './reads/running.js';
export type { IndexStat, TableStat } from './reads/tables.js';
export type { HoldRecord, HoldRequest, PauseState, TreeDeletion } from './retention-controls.js';
export {
  type BatchCursor,
  type DueBatch,
  FIRST_BATCH,
  type LockedBatch,
  type PurgeFilter,
  type RetentionCapability,
  type SweepToRecord,
} from './retention-storage.js';
export { toDate } from './rows.js';
export type { ScheduleToStore, StoredSchedule } from './schedules.js';
export { ANY_JOB, type JobFilterFields, type JobFilterParams, jobFilterParams } from './sql/job-filter.js';
export type { QueueChangeCursor } from './sql/queue-changes.js';
export type { JobTokenRow, TokenRow, TokenSettlement } from './token-storage.js';
export type { WorkerHolder, WorkerRegistration } from './workers.js';
export type { CheckpointRow, ChildOutcome, SignalRefusal, SignalRow } from './workflow-storage.js';

/** Which database client an engine runs on. */
export type DriverKind = Driver['kind'];

/** What the dashboard's and CLI's read models read: bounded counts, lists, charts, statistics. */
const READS = {
  ...overview,
  ...charts,
  ...jobList,
  ...jobQuery,
  ...jobViews,
  ...tables,
  ...running,
  listSweepRecords,
};

/**
 * The one door to the database: every operation Tidemark performs, each a statement (or one
 * transaction) from `sql/`, the same on both drivers, grouped by what it concerns and
 * returning typed, mapped values. Nothing above storage runs a statement; it calls these.
 * It never logs; callers do.
 */
export class Storage {
  readonly kind: DriverKind;
  /** The SQL schema holding Tidemark's tables. */
  readonly schema: string;
  readonly queues: Operations<typeof queues>;
  /** Operators' settings per concurrency key, and the read of a queue's keys. */
  readonly keys: Operations<typeof keys>;
  /** Rate limiters: their definitions, their buckets, and the tokens claims take. */
  readonly limiters: Operations<typeof limiters>;
  /** Enqueueing and reading jobs. */
  readonly jobs: Operations<typeof jobs>;
  /** The worker's claims, outcomes, locks and suspensions. */
  readonly attempts: Operations<typeof attempts>;
  /** What handlers say of their jobs: progress, metadata, log lines. */
  readonly notes: Operations<typeof notes>;
  /** Operator actions on one job's tree. */
  readonly actions: Operations<typeof actions>;
  /** The audit of operator actions: each action's row, and pages of them. */
  readonly audit: Operations<typeof audit>;
  /** The maintenance tick's statements and the cluster-wide turns of periodic services. */
  readonly maintenance: Operations<typeof maintenance>;
  /** The workers' own rows. */
  readonly workers: Operations<typeof workers>;
  /** Workflow state: checkpoints, signals, children. */
  readonly workflow: Operations<typeof workflow>;
  /** Callback tokens: made by workflows, settled by completions. */
  readonly tokens: Operations<typeof tokens>;
  readonly schedules: Operations<typeof schedules>;
  /** The bulk actions' keyset walks. */
  readonly bulk: Operations<typeof bulk>;
  /** The pause switch, holds, re-freezing and explicit deletes, and the gate that orders them. */
  readonly controls: Omit<Operations<typeof controls>, 'gated'> & { gated: Gated };
  /** The read models' statements (dashboard, CLI, metrics). */
  readonly reads: Operations<typeof READS>;
  /** What `tidemark/testing` reads and moves: its clock, what is due, a queue's jobs. */
  readonly testKit: Operations<typeof testKit>;
  /** The optional retention capability (deleting due rows); see RetentionCapability. */
  readonly retention?: RetentionCapability;
  readonly #db: Runner;

  /**
   * @param hasRetention whether this storage offers the retention capability (deleting due
   * rows). Without it everything else works and workers run no sweep.
   * @param rewrite a change made to every statement's text (the test kit's clock).
   */
  constructor(driver: Driver, schema: string, hasRetention = true, rewrite?: (text: string) => string) {
    const db = new Runner(driver, schema, rewrite);
    this.#db = db;
    registerRunner(this, db);
    this.kind = driver.kind;
    this.schema = schema;
    this.queues = operations(db, queues);
    this.keys = operations(db, keys);
    this.limiters = operations(db, limiters);
    this.jobs = operations(db, jobs);
    this.attempts = operations(db, attempts);
    this.notes = operations(db, notes);
    this.actions = operations(db, actions);
    this.audit = operations(db, audit);
    this.maintenance = operations(db, maintenance);
    this.workers = operations(db, workers);
    this.workflow = operations(db, workflow);
    this.tokens = operations(db, tokens);
    this.schedules = operations(db, schedules);
    this.bulk = operations(db, bulk);
    this.controls = operations(db, controls) as Storage['controls'];
    this.reads = operations(db, READS);
    this.testKit = operations(db, testKit);
    if (hasRetention) this.retention = operations(db, retention) satisfies RetentionCapability;
  }

  get hasRetention(): boolean {
    return this.retention !== undefined;
  }

  /**
   * Run `fn` in one transaction: committed when it resolves, rolled back when it throws. The
   * handle goes to operations that take one (`on`/`tx`) and to a caller's own code.
   */
  transaction<T>(fn: (tx: TransactionHandle) => Promise<T>): Promise<T> {
    return this.#db.driver.transaction(fn);
  }

  /**
   * Run `fn` all or nothing: in a transaction of its own, or inside the caller's transaction
   * `on` behind a savepoint, so a failure leaves that transaction usable.
   */
  atomically<T>(fn: (tx: Queryable) => Promise<T>, on?: Queryable): Promise<T> {
    return atomically(this.#db, fn, on);
  }

  /**
   * A transaction for a caller's own statements (`tm.transaction`): its handle answers only
   * while `fn` runs, and a late statement is refused with TransactionClosedError.
   */
  callerTransaction<T>(fn: (tx: Queryable) => Promise<T> | T): Promise<T> {
    return runOwnTransaction(this.#db.driver, fn);
  }

  /**
   * Wake on this schema's notifications. `onReady` runs after every (re)subscription so the
   * caller can poll for what it missed; `onProbe` says whether notifications reach it.
   */
  listen(
    onMessage: (payload: string) => void,
    onReady?: () => void,
    onProbe?: (delivers: boolean) => void,
  ): Promise<Subscription> {
    return this.#db.driver.listen(this.#db.channel, onMessage, onReady, onProbe);
  }

  /** Close the database connection (or the embedded database). */
  close(): Promise<void> {
    return this.#db.driver.close();
  }
}
