import type { EngineCore } from './engine-core.js';
import {
  DriverClosedError,
  InvalidJobStateError,
  InvalidOptionError,
  JobFailedError,
  JobNotFoundError,
  QueueNotFoundError,
  ResultTimeoutError,
  ScheduleNotFoundError,
} from './errors.js';
import { type TidemarkEventName, type TidemarkEvents, TypedEmitter } from './events.js';
import { isFinished } from './job-status.js';
import { insertJobsAtomically } from './jobs/add-jobs.js';
import { deleteJob, deleteWorkflowSubtree } from './jobs/delete-jobs.js';
import { type AddJobInput, type AddJobResult, resolveAddJob } from './jobs/job-options.js';
import { retryJob } from './jobs/retry-job.js';
import { defaultLogger, type Logger } from './log/logger.js';
import { OnceLogger } from './log/once.js';
import { type InstrumentOptions, instrumentEngine } from './metrics/instrument.js';
import type { MeterLike } from './metrics/meter.js';
import { checkBatchSize } from './options/batch-size.js';
import {
  checkBoolean,
  checkId,
  checkInteger,
  checkKnownKeys,
  checkObject,
  checkSeconds,
  checkString,
} from './options/check.js';
import type { DashboardOptions, RunningDashboard } from './options/dashboard-options.js';
import { toJsonText } from './options/json.js';
import { checkOpenScalars } from './options/open-options.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  type QueueOptions,
  type ResolvedQueue,
  resolveQueueOptions,
} from './queues/queue-options.js';
import { QueueRegistry } from './queues/queue-registry.js';
import {
  type ApplyRetentionOptions,
  type ApplyRetentionResult,
  applyRetention,
} from './retention/apply-retention.js';
import type { ArchiveHook } from './retention/archive.js';
import {
  type HoldJobsOptions,
  type HoldRecord,
  type HoldResult,
  holdJobs,
  releaseHold,
} from './retention/holds.js';
import {
  type PauseRetentionOptions,
  pauseRetention,
  type RetentionStatus,
  resumeRetention,
  retentionStatus,
} from './retention/pause.js';
import { freezeRetention, Retention, type RetentionPolicy } from './retention/policy.js';
import { notePolicy } from './retention/policy-notes.js';
import { type RemoveJobsOptions, removeJobs } from './retention/remove-jobs.js';
import type { SweepOutcome, SweepPreview, SweepRecord } from './retention/sweep-types.js';
import { previewSweep, sweepRetention } from './retention/sweeper.js';
import { checkCron } from './schedule/cron.js';
import { type CallerTransaction, wrapCallerTransaction } from './storage/driver/caller-transaction.js';
import { createDriver, type DatabaseOption } from './storage/driver/create-driver.js';
import type { Driver } from './storage/driver/driver.js';
import { checkSchema, migrate } from './storage/migrate.js';
import { listSweepRecords } from './storage/retention-storage.js';
import type { Job } from './storage/rows.js';
import { checkSchemaName } from './storage/schema-name.js';
import { deleteSchedule, listSchedules, upsertSchedule } from './storage/sql/schedules.js';
import { Storage } from './storage/storage.js';
import { type CheckpointRow, type SignalRow, WorkflowStorage } from './storage/workflow-storage.js';
import { type StopOnSignalsOptions, stopOnSignals } from './worker/stop-on-signals.js';
import { Worker } from './worker/worker.js';
import { DEFAULT_SWEEP, resolveWorkerOptions, type WorkerOptions } from './worker/worker-options.js';

/** Options of `Tidemark.open`. */
export interface OpenOptions {
  /** `'./.tidemark'` (default, embedded folder), `'memory://'`, `'postgres://…'`, a `pg.Pool` or a PGlite instance. */
  database?: DatabaseOption;
  /** SQL schema holding Tidemark's tables. Default `'tidemark'`. */
  schema?: string;
  /** The engine's default retention policy (default `Retention.STOCK`); `false` keeps everything. */
  retention?: RetentionPolicy | false;
  logger?: Logger;
  /** Called with each batch of jobs retention is about to delete, in the deleting transaction. */
  archive?: ArchiveHook;
  /** Embedded only: sync the WAL on every commit (power-loss safe, about half the commit rate). */
  strictDurability?: boolean;
  /**
   * Apply pending migrations at open (default true). With `false` nothing is written: open
   * throws SchemaNotFoundError unless the schema exists at this version's migrations.
   */
  migrate?: boolean;
  /** Connections in the pool Tidemark creates from a URL. Default 10. */
  poolSize?: number;
  /** Capabilities of the storage; `{ retention: false }` models a storage that cannot delete. */
  capabilities?: { retention?: boolean };
}

/** Everything about one job: for dashboards and debugging. */
export interface JobDetail {
  job: Job;
  checkpoints: CheckpointRow[];
  signals: SignalRow[];
  children: Job[];
  /** Retention holds that keep this job's tree (see `tm.holdJobs`). */
  holds: HoldRecord[];
}

/** Options of `tm.schedule`. */
export interface ScheduleOptions {
  name: string;
  cron: string;
  queue: string;
  data?: unknown;
  /** IANA time zone; default UTC. */
  timezone?: string;
}

/** The Tidemark engine: queues, jobs, workflows, schedules and retention on one database. */
export class Tidemark {
  private readonly core: EngineCore;
  private readonly workers = new Set<Worker>();
  private readonly dashboards = new Set<RunningDashboard>();
  private closed = false;

  private constructor(
    private readonly driver: Driver,
    core: EngineCore,
  ) {
    this.core = core;
  }

  /** Connect, migrate (unless told not to) and return an engine. Starts no timers. */
  static async open(input: OpenOptions = {}): Promise<Tidemark> {
    const options = checkObject(input, 'options') as OpenOptions;
    checkKnownKeys(options as Record<string, unknown>, '', [
      'database',
      'schema',
      'retention',
      'logger',
      'archive',
      'strictDurability',
      'migrate',
      'poolSize',
      'capabilities',
    ]);
    checkOpenScalars(options as Record<string, unknown>);
    const schema = checkSchemaName(options.schema ?? 'tidemark');
    const retentionDisabled = options.retention === false;
    const engineRetention = freezeRetention(
      options.retention === undefined ? Retention.STOCK : options.retention,
    );
    if (options.archive !== undefined && typeof options.archive !== 'function') {
      throw new InvalidOptionError('archive', 'a function (batch, tx) => void', options.archive);
    }
    const logger = options.logger ?? defaultLogger();
    const once = new OnceLogger(logger);
    if (options.retention !== undefined) notePolicy(once, options.retention, 'engine');
    const events = new TypedEmitter();
    const driver = await createDriver(options.database ?? './.tidemark', {
      strictDurability: options.strictDurability,
      poolSize: options.poolSize,
      onError: (error) => {
        events.emit('error', { scope: 'database', error });
        logger.warn('database connection error', { error: String(error) });
      },
    });
    try {
      if (options.migrate === false) await checkSchema(driver, schema);
      else await migrate(driver, schema);
    } catch (error) {
      await driver.close();
      throw error;
    }
    const storage = new Storage(driver, schema, options.capabilities?.retention !== false);
    const core: EngineCore = {
      storage,
      workflow: new WorkflowStorage(storage),
      registry: new QueueRegistry(storage),
      engineRetention,
      retentionDisabled,
      insertDefaults: { retention: engineRetention, maxAttempts: DEFAULT_MAX_ATTEMPTS },
      logger,
      once,
      events,
      archive: options.archive,
    };
    return new Tidemark(driver, core);
  }

  /** Which driver this engine runs on. */
  get driverKind(): Driver['kind'] {
    return this.driver.kind;
  }

  /** The schema holding Tidemark's tables. */
  get schema(): string {
    return this.core.storage.schema;
  }

  /** Subscribe to a typed event; returns an unsubscribe function. */
  on<E extends TidemarkEventName>(event: E, listener: (payload: TidemarkEvents[E]) => void): () => void {
    return this.core.events.on(event, listener);
  }

  // queues

  /**
   * Define a queue in this process (and store its options for every process). Synchronous:
   * bad options throw InvalidOptionError at once; later calls wait for the write.
   */
  createQueue<Data = unknown, Output = unknown>(options: QueueOptions<Data, Output>): ResolvedQueue {
    this.assertOpen();
    const queue = resolveQueueOptions(options);
    if (options.retention !== undefined) notePolicy(this.core.once, options.retention, `queue ${queue.name}`);
    this.core.registry.define(queue);
    return queue;
  }

  /** Stop every worker from claiming this queue's jobs until resumed. */
  async pauseQueue(name: string): Promise<void> {
    await this.setQueuePaused(name, true);
  }

  async resumeQueue(name: string): Promise<void> {
    await this.setQueuePaused(name, false);
  }

  /** Queues stored in the database, with their options and paused state. */
  async listQueues(): Promise<{ name: string; options: Record<string, unknown>; paused: boolean }[]> {
    await this.ready();
    return this.core.storage.listQueues();
  }

  private async setQueuePaused(name: string, paused: boolean): Promise<void> {
    checkString(name, 'name');
    await this.ready();
    if (!(await this.core.storage.setQueuePaused(name, paused))) throw new QueueNotFoundError(name);
  }

  // jobs

  /**
   * Add a job. With `{ tx }` (a `pg` client inside BEGIN, or a PGlite transaction) it is
   * written in the caller's transaction: rolled back with it, visible to workers only after commit.
   */
  async addJob<Data = unknown>(
    input: AddJobInput<Data>,
    options: { tx?: CallerTransaction } = {},
  ): Promise<AddJobResult> {
    const [result] = await this.addJobs([input], options);
    return result;
  }

  /**
   * Add many jobs in one statement (jobs with a time-windowed dedupe key take one each), all
   * or nothing: when the call fails, no job is added and no dedupe key is taken.
   */
  async addJobs<Data = unknown>(
    inputs: AddJobInput<Data>[],
    options: { tx?: CallerTransaction } = {},
  ): Promise<AddJobResult[]> {
    if (!Array.isArray(inputs)) throw new InvalidOptionError('jobs', 'an array of jobs', inputs);
    const adds = inputs.map((input, i) => resolveAddJob(input, inputs.length === 1 ? '' : `jobs[${i}]`));
    for (let i = 0; i < adds.length; i++) {
      if (adds[i].jobRetention)
        notePolicy(this.core.once, inputs[i].retention, `queue ${adds[i].queue}, job`);
    }
    const on = options?.tx === undefined ? undefined : wrapCallerTransaction(options.tx);
    // Inside a caller's transaction, touch the database only through it: on PGlite a queue
    // definition still being stored would wait for that transaction, which waits for us.
    if (on) this.assertOpen();
    else await this.ready();
    if (adds.length === 0) return [];
    const results = await insertJobsAtomically(this.core, adds, on);
    const perQueue = new Map<string, number>();
    results.forEach((r, i) => {
      if (!r.deduplicated) perQueue.set(adds[i].queue, (perQueue.get(adds[i].queue) ?? 0) + 1);
    });
    for (const [queue, count] of perQueue) this.core.events.emit('job:added', { queue, count });
    return results;
  }

  async getJob(id: string): Promise<Job | null> {
    const jobId = checkId(id);
    await this.ready();
    return this.core.storage.getJob(jobId);
  }

  /**
   * Wait for a job to finish and return its output. Throws JobFailedError (with the job's last
   * error in its message) when it ends failed, cancelled or expired, JobNotFoundError when it does
   * not exist (or was purged), and ResultTimeoutError when `timeoutSeconds` pass first.
   */
  async result<Output = unknown>(id: string, options: { timeoutSeconds?: number } = {}): Promise<Output> {
    const jobId = checkId(id);
    checkKnownKeys(checkObject(options, 'options'), '', ['timeoutSeconds']);
    const timeout =
      options.timeoutSeconds === undefined
        ? undefined
        : checkSeconds(options.timeoutSeconds, 'timeoutSeconds');
    await this.ready();
    const deadline = timeout === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeout * 1000;
    let delay = 20;
    for (;;) {
      const job = await this.core.storage.getJob(jobId);
      if (!job) throw new JobNotFoundError(jobId);
      if (job.status === 'completed') return job.output as Output;
      if (isFinished(job.status)) throw new JobFailedError(jobId, job.status, job.error);
      if (Date.now() >= deadline) throw new ResultTimeoutError(jobId, job.status, timeout ?? 0);
      await this.waitForFinish(jobId, Math.min(delay, Math.max(deadline - Date.now(), 0)));
      delay = Math.min(delay * 2, 1_000);
    }
  }

  /** Resolves after `ms`, or earlier when a worker in this process finishes the job. */
  private waitForFinish(jobId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const offs: (() => void)[] = [];
      const done = () => {
        clearTimeout(timer);
        for (const off of offs) off();
        resolve();
      };
      const timer = setTimeout(done, ms);
      offs.push(this.core.events.on('job:completed', (e) => e.id === jobId && done()));
      offs.push(this.core.events.on('job:failed', (e) => e.id === jobId && !e.willRetry && done()));
    });
  }

  /** Cancel a job and its in-flight descendants. A running handler's AbortSignal fires. */
  async cancelJob(id: string): Promise<Job> {
    const jobId = checkId(id);
    await this.ready();
    await this.core.storage.cancelSubtree(jobId);
    return this.mustGet(jobId);
  }

  /**
   * Run a finished (or retry-waiting) job again now, with at least one attempt left. A `unique`
   * job whose key another in-flight job holds is refused with UniqueKeyConflictError.
   */
  async retryJob(id: string): Promise<Job> {
    const jobId = checkId(id);
    await this.ready();
    return retryJob(this.core, jobId);
  }

  /** Hold a pending, retry-waiting or waiting job until resumed. */
  async pauseJob(id: string): Promise<Job> {
    const jobId = checkId(id);
    await this.ready();
    if (!(await this.core.storage.pauseJob(jobId))) {
      const job = await this.mustGet(jobId);
      if (job.status !== 'paused') {
        throw new InvalidJobStateError(
          jobId,
          job.status,
          'only pending, retry or waiting jobs can be paused',
        );
      }
    }
    return this.mustGet(jobId);
  }

  async resumeJob(id: string): Promise<Job> {
    const jobId = checkId(id);
    await this.ready();
    if (!(await this.core.storage.resumeJob(jobId))) {
      const job = await this.mustGet(jobId);
      throw new InvalidJobStateError(jobId, job.status, 'only paused jobs can be resumed');
    }
    return this.mustGet(jobId);
  }

  /**
   * Delete a finished job now, with its checkpoints, signals, fires and unique locks.
   * Refuses a job in flight (cancel first), a job with children (use deleteWorkflowSubtree),
   * a job whose ancestor is in flight (AncestorInFlightError), a held job (JobHeldError) and
   * a job below the top of a workflow tree (PartOfWorkflowError: the tree goes whole).
   * Not stopped by `pauseRetention`: an explicit delete of one job is not a bulk removal.
   */
  async deleteJob(id: string): Promise<void> {
    const jobId = checkId(id);
    await this.ready();
    await deleteJob(this.core, jobId);
  }

  /** Delete a finished job and all its descendants, on the same conditions as deleteJob. */
  async deleteWorkflowSubtree(id: string): Promise<number> {
    const jobId = checkId(id);
    await this.ready();
    return deleteWorkflowSubtree(this.core, jobId);
  }

  /**
   * Manual purge: finished jobs older than a flat cutoff, whole trees only, pins and holds
   * kept. Refused with RetentionPausedError while retention is paused (a dry run still counts).
   */
  async removeJobs(options: RemoveJobsOptions = {}): Promise<number> {
    this.assertOpen();
    await this.ready();
    return removeJobs(this.core, options);
  }

  // workflows

  /** Store a signal for a job's wait; refused (nothing stored) with a reason when it cannot be used. */
  async signal(
    jobId: string,
    name: string,
    payload?: unknown,
  ): Promise<{ delivered: true } | { delivered: false; reason: string }> {
    const id = checkId(jobId, 'jobId');
    checkString(name, 'name');
    const text = toJsonText(payload, 'payload');
    await this.ready();
    return this.core.workflow.deliverSignal(id, name, text);
  }

  /** A job with its checkpoints, signals (pending or consumed) and children; null when absent. */
  async getJobDetail(id: string): Promise<JobDetail | null> {
    const jobId = checkId(id);
    await this.ready();
    const job = await this.core.storage.getJob(jobId);
    if (!job) return null;
    const [checkpoints, signals, children, holds] = await Promise.all([
      this.core.workflow.listCheckpoints(jobId),
      this.core.workflow.listSignals(jobId),
      this.core.storage.listChildren(jobId),
      this.core.storage.controls.holdsOfJob(jobId),
    ]);
    return { job, checkpoints, signals, children, holds };
  }

  // schedules

  /** Create or replace a cron schedule that enqueues `data` on `queue`. */
  async schedule(options: ScheduleOptions): Promise<void> {
    const input = checkObject(options, 'schedule');
    checkKnownKeys(input, '', ['name', 'cron', 'queue', 'data', 'timezone']);
    const name = checkString(input.name, 'name');
    const { cron, timezone } = checkCron(input.cron, input.timezone);
    const queue = checkString(input.queue, 'queue');
    const data = toJsonText(input.data, 'data');
    await this.ready();
    await this.core.registry.get(queue);
    await this.core.storage.run(upsertSchedule, { name, cron, timezone, queue, data });
  }

  async unschedule(name: string): Promise<void> {
    checkString(name, 'name');
    await this.ready();
    const rows = await this.core.storage.run(deleteSchedule, { name });
    if (rows.length === 0) throw new ScheduleNotFoundError(name);
  }

  async listSchedules(): Promise<
    { name: string; cron: string; timezone: string; queue: string; data: unknown; lastFireAt: Date | null }[]
  > {
    await this.ready();
    const rows = await this.core.storage.run<Record<string, never>, Record<string, unknown>>(
      listSchedules,
      {},
    );
    return rows.map((r) => ({
      name: r.name as string,
      cron: r.cron as string,
      timezone: r.timezone as string,
      queue: r.queue as string,
      data: r.data,
      lastFireAt: (r.last_fire_at ?? null) as Date | null,
    }));
  }

  // retention

  /**
   * One full retention pass now, on this process, whatever the workers' schedule:
   * due trees, consumed signals past their window and expired unique locks. Resolves to
   * `{ jobs, signals, uniqueLocks, byQueue }` deleted (with `error` when a batch failed,
   * for example a throwing archive hook; earlier batches stay deleted).
   *
   * With `{ dryRun: true }` it deletes nothing and resolves to what a pass would delete
   * now, per queue and status. While retention is paused it deletes nothing and resolves
   * with `paused: true`. `batchSize` runs from 1 to 10000 (larger values are clamped, with
   * one warning). Throws RetentionUnsupportedError on a storage without the retention
   * capability.
   */
  sweep(options?: { dryRun?: false; batchSize?: number }): Promise<SweepOutcome>;
  sweep(options: { dryRun: true }): Promise<SweepPreview>;
  sweep(options?: { dryRun?: boolean; batchSize?: number }): Promise<SweepOutcome | SweepPreview>;
  async sweep(options: { dryRun?: boolean; batchSize?: number } = {}): Promise<SweepOutcome | SweepPreview> {
    const input = checkObject(options, 'options');
    checkKnownKeys(input, '', ['dryRun', 'batchSize']);
    const dryRun = input.dryRun === undefined ? false : checkBoolean(input.dryRun, 'dryRun');
    const { batchSize, warning } =
      input.batchSize === undefined
        ? { batchSize: DEFAULT_SWEEP.batchSize }
        : checkBatchSize(input.batchSize, 'batchSize');
    await this.ready();
    if (warning) this.core.once.warn(warning, warning);
    if (dryRun) return previewSweep(this.core);
    const result = await sweepRetention(this.core, { batchSize, includeUniqueLocks: true });
    return {
      jobs: result.jobs,
      signals: result.signals,
      uniqueLocks: result.uniqueLocks,
      byQueue: result.byQueue,
      ...(result.paused ? { paused: true } : {}),
      ...(result.error === undefined ? {} : { error: result.error }),
    };
  }

  /**
   * Stop all deletion, cluster-wide and durably, until `resumeRetention()`: no sweep on any
   * node or engine deletes anything, and bulk removal (`removeJobs`, the dashboard's and the
   * CLI's purge) is refused with RetentionPausedError. `deleteJob` of a named job still
   * works. Resolves once every deletion that was running has finished.
   */
  async pauseRetention(options: PauseRetentionOptions): Promise<RetentionStatus> {
    await this.ready();
    return pauseRetention(this.core, options);
  }

  /** Let sweeps and bulk removal delete again. */
  async resumeRetention(): Promise<RetentionStatus> {
    await this.ready();
    return resumeRetention(this.core);
  }

  /** The cluster-wide pause switch (`{ paused, reason, since, pausedBy }`) and how many holds there are. */
  async retentionStatus(): Promise<RetentionStatus> {
    await this.ready();
    return retentionStatus(this.core);
  }

  /**
   * Keep jobs (by id, or a whole queue, now and later), with the trees they belong to,
   * through every sweep and bulk removal until `releaseHold(holdId)`. `deleteJob` of a
   * held job is refused with JobHeldError.
   */
  async holdJobs(options: HoldJobsOptions): Promise<HoldResult> {
    await this.ready();
    return holdJobs(this.core, options);
  }

  async releaseHold(holdId: string): Promise<void> {
    await this.ready();
    await releaseHold(this.core, holdId);
  }

  /** Every retention hold in place, oldest first. */
  async listHolds(): Promise<HoldRecord[]> {
    await this.ready();
    return this.core.storage.controls.listHolds();
  }

  /**
   * Re-freeze the retention windows of a queue's jobs already in the database: the
   * queue's stored policy, or `policy` (`false` keeps them forever). Finished jobs get
   * their purge time again from when they finished; jobs in flight carry the new windows
   * when they finish. Bounded batches; safe to run again. `dryRun` counts first.
   */
  async applyRetention(options: ApplyRetentionOptions): Promise<ApplyRetentionResult> {
    await this.ready();
    return applyRetention(this.core, options);
  }

  /**
   * The most recent sweeps (newest first, up to `limit`, default 20) and what they
   * deleted: retention passes of workers and `tm.sweep()`, and unique-lock sweeps.
   */
  async listSweeps(limit = 20): Promise<SweepRecord[]> {
    const n = checkInteger(limit, 'limit', 1, 500);
    await this.ready();
    return listSweepRecords(this.core.storage, n);
  }

  // dashboard and metrics

  /**
   * Serve the dashboard on its own HTTP server (127.0.0.1 unless `host` says otherwise,
   * which then requires a `token`). Closed with `close()` or when the engine closes. To
   * mount it in an existing server instead, use `createDashboardHandler(tm, options)` from
   * `tidemark/dashboard`. The dashboard's modules load on the first call.
   */
  async dashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
    this.assertOpen();
    const { serveDashboard } = await import('./dashboard/server.js');
    return serveDashboard(this, options, this.dashboards);
  }

  /**
   * Record OpenTelemetry metrics from this engine's events: jobs added, completed and
   * failed per queue, queue depth, pickup latency, handler duration and rows deleted by
   * sweeps. Pass a `Meter` from `@opentelemetry/api`; returns a function that detaches.
   */
  instrument(meter: MeterLike, options: InstrumentOptions = {}): () => void {
    this.assertOpen();
    return instrumentEngine(this.core, meter, options);
  }

  // workers

  /** Create a worker (not started). */
  worker(options: WorkerOptions = {}): Worker {
    this.assertOpen();
    const { options: resolved, warnings } = resolveWorkerOptions(options);
    const worker = new Worker(this.core, resolved, warnings);
    this.workers.add(worker);
    return worker;
  }

  /**
   * Opt in to a clean shutdown on SIGTERM and SIGINT (by default): stop every worker (running
   * handlers get `timeoutSeconds`, then their jobs go back without an attempt counted), close
   * the engine and exit 0 (1 if closing failed) unless `exit: false`. A second signal exits at
   * once with 128 + its number. Returns a function that removes the handlers.
   */
  stopOnSignals(options: StopOnSignalsOptions = {}): () => void {
    return stopOnSignals({ core: this.core, workers: this.workers, close: () => this.close() }, options);
  }

  /** Stop every worker and close the database (when Tidemark opened it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.dashboards].map((dashboard) => dashboard.close()));
    await Promise.all([...this.workers].map((worker) => worker.stop()));
    await this.core.registry.flush().catch(() => {});
    await this.driver.close();
  }

  /** Internals for the dashboard, CLI and tests in this package. */
  get internals(): EngineCore {
    return this.core;
  }

  private async ready(): Promise<void> {
    this.assertOpen();
    await this.core.registry.flush();
  }

  private assertOpen(): void {
    if (this.closed) throw new DriverClosedError();
  }

  private async mustGet(id: string): Promise<Job> {
    const job = await this.core.storage.getJob(id);
    if (!job) throw new JobNotFoundError(id);
    return job;
  }
}
