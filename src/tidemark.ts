import { openEngine } from './engine.js';
import type { EngineCore } from './engine-core.js';
import type { TidemarkEventName, TidemarkEvents } from './events.js';
import { addInChunks, addsInChunks } from './intake/add-in-chunks.js';
import { type AddJobsOptions, addCheckedJobs, checkAddRequest } from './intake/add-jobs.js';
import type { AddJobInput, AddJobResult } from './intake/job-request.js';
import { type CallerTransaction, TransactionScope } from './intake/transaction-scope.js';
import { validateRequests } from './intake/validate-data.js';
import { getJobDetail, type JobDetail } from './jobs/job-detail.js';
import { checkResultRequest, waitForResult } from './jobs/result.js';
import * as tokens from './jobs/tokens.js';
import { type InstrumentOptions, instrumentEngine } from './metrics/instrument.js';
import type { MeterLike } from './metrics/meter.js';
import type { AuditOptions } from './model/audit.js';
import type { Job } from './model/job.js';
import type { StandardSchemaV1 } from './model/standard-schema.js';
import type { DashboardOptions, RunningDashboard } from './options/dashboard-options.js';
import type { OpenOptions } from './options/open-options.js';
import { defineQueue, setQueuePaused } from './queues/define-queue.js';
import { QueueHandle } from './queues/queue-handle.js';
import type {
  BatchQueueOptions,
  QueueOptions,
  ResolvedQueue,
  SingleQueueOptions,
} from './queues/queue-options.js';
import type {
  AddInputFor,
  JobId,
  QueueDataOf,
  QueueOutputOf,
  RegisteredQueue,
} from './queues/registry-types.js';
import {
  checkedSignalPayload,
  type DefineQueueOptions,
  defineTypedQueue,
  type SignalDeclaration,
  type SignalDeclarations,
} from './queues/typed-queue.js';
import { ScheduleCalls } from './schedule-calls.js';
import { checkTransactionCallback, type DriverKind, type Queryable } from './storage/storage.js';
import { type StopOnSignalsOptions, stopOnSignals } from './worker/stop-on-signals.js';
import { Worker, type WorkerRecord } from './worker/worker.js';
import { resolveWorkerOptions, type WorkerOptions } from './worker/worker-options.js';
import {
  checkSignalRequest,
  type SignalDelivery,
  type SignalOptions,
  splitSignalOptions,
} from './workflow/signal.js';

/** The Tidemark engine: queues, jobs, workflows, schedules and retention on one database. */
export class Tidemark extends ScheduleCalls {
  private readonly workers = new Set<Worker>();
  private readonly dashboards = new Set<RunningDashboard>();
  private readonly scope = new TransactionScope();

  protected constructor(core: EngineCore) {
    super(core);
  }

  /** Connect, migrate (unless told not to) and return an engine. Starts no timers. */
  static async open(input: OpenOptions = {}): Promise<Tidemark> {
    return new Tidemark(await openEngine(input));
  }

  /** Which driver this engine runs on. */
  get driverKind(): DriverKind {
    return this.core.storage.kind;
  }

  /** The schema holding Tidemark's tables. */
  get schema(): string {
    return this.core.storage.schema;
  }

  /** Subscribe to a typed event; returns an unsubscribe function. */
  on<E extends TidemarkEventName>(event: E, listener: (payload: TidemarkEvents[E]) => void): () => void {
    return this.core.events.on(event, listener);
  }

  /**
   * Define a queue here and store its options for all; synchronous, bad options throw at once.
   * With `batch`, its handler takes an array of jobs and gives an outcome per job.
   */
  createQueue<Data = unknown, Output = unknown>(options: SingleQueueOptions<Data, Output>): ResolvedQueue;
  createQueue<Data = unknown, Output = unknown>(options: BatchQueueOptions<Data, Output>): ResolvedQueue;
  createQueue<Data = unknown, Output = unknown>(options: QueueOptions<Data, Output>): ResolvedQueue;
  createQueue<Data = unknown, Output = unknown>(options: QueueOptions<Data, Output>): ResolvedQueue {
    this.assertOpen();
    return defineQueue(this.core, options);
  }

  /** Stop every worker from claiming this queue's jobs until resumed. */
  async pauseQueue(name: string, options?: AuditOptions): Promise<void> {
    return this.audit(options, 'pause-queue', { queue: name }, (core) => setQueuePaused(core, name, true));
  }

  async resumeQueue(name: string, options?: AuditOptions): Promise<void> {
    return this.audit(options, 'resume-queue', { queue: name }, (core) => setQueuePaused(core, name, false));
  }

  /** Queues stored in the database, with their options and paused state. */
  async listQueues(): Promise<{ name: string; options: Record<string, unknown>; paused: boolean }[]> {
    return this.whenReady((core) => core.storage.queues.listQueues());
  }

  /**
   * Define a typed queue: job data checked by `input` at add and at claim, the handler's output
   * by `output`, signal payloads by theirs; the handler, `ctx` and the returned handle are
   * typed from the schemas (any Standard Schema: zod, valibot, arktype...).
   */
  defineQueue<
    I extends StandardSchemaV1 | undefined = undefined,
    O extends StandardSchemaV1 | undefined = undefined,
    S extends SignalDeclarations = Record<never, SignalDeclaration>,
  >(options: DefineQueueOptions<I, O, S>): QueueHandle<I, O, S> {
    this.assertOpen();
    const queue = defineTypedQueue(this.core, options as DefineQueueOptions<never, never, never>);
    return new QueueHandle<I, O, S>(queue.name, {
      addJobs: (inputs) => this.addAny(inputs, {}),
      result: (id, resultOptions) => this.result(id, resultOptions),
      signal: (id, name, payload) => this.signal(id, name, payload),
      getJob: (id) => this.getJob(id),
      checkSignal: (name, signal, payload) => checkedSignalPayload(this.core, name, signal, payload),
    });
  }

  /** Add a job; with `{ tx }` it is written in your transaction, seen by workers after commit. */
  addJob<Q extends RegisteredQueue>(
    input: AddJobInput<QueueDataOf<Q>> & { queue: Q },
    options?: AddJobsOptions,
  ): Promise<AddJobResult & { id: JobId<Q> }>;
  addJob<Data = unknown>(input: AddInputFor<Data>, options?: AddJobsOptions): Promise<AddJobResult>;
  async addJob(input: AddJobInput, options: AddJobsOptions = {}): Promise<AddJobResult> {
    return (await this.addAny([input], options))[0];
  }

  /** Add many jobs in one statement, all or nothing: on failure no job and no dedupe key is taken. */
  async addJobs<Data = unknown>(
    inputs: AddInputFor<Data>[],
    options: AddJobsOptions = {},
  ): Promise<AddJobResult[]> {
    return this.addAny(inputs, options);
  }

  /** addJobs, untyped by the registry: what the typed entries and the queue handles call. */
  private async addAny(inputs: AddJobInput[], given: AddJobsOptions): Promise<AddJobResult[]> {
    const tx = this.scope.joined(given?.tx);
    const options = tx === given?.tx ? given : { ...given, tx };
    if (addsInChunks(this.core, inputs, options)) {
      return addInChunks(
        this.core,
        inputs,
        (requests) => validateRequests(this.core, requests),
        () => this.ready(),
      );
    }
    const request = checkAddRequest(this.core, inputs, options);
    // A queue defined here with a schema checks the data next (defaults applied): nothing is
    // written when it refuses. Inside a caller's transaction this touches no database.
    await validateRequests(this.core, request.requests);
    // Inside a caller's transaction, touch the database only through it: on PGlite a queue
    // definition still being stored would wait for that transaction, which waits for us.
    if (request.on) this.assertOpen();
    else await this.ready();
    return addCheckedJobs(this.core, request);
  }

  /**
   * Run `fn` in one transaction of this engine's database, committed when it resolves (with its
   * value) and rolled back when it throws. Pass `tx` as `{ tx }` to addJob/addJobs, and run your
   * own statements with `tx.query`; on the embedded database, nothing else may be called inside.
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T> | T): Promise<T> {
    checkTransactionCallback(fn);
    await this.ready();
    return this.core.storage.callerTransaction(fn);
  }

  /**
   * Run `fn` with `tx` (a `pg` client in BEGIN, a PGlite transaction, an adapter's `fromKysely(trx)`…)
   * joined by every `addJob`, `addJobs` and `signal` inside it (queue handles' too) without a `tx`
   * of its own; an inner withTransaction wins. Resolves with `fn`'s value; you commit or roll back.
   * A call from `fn`'s context after it settled (a timer it left) throws TransactionClosedError.
   */
  async withTransaction<T>(tx: CallerTransaction, fn: () => Promise<T> | T): Promise<T> {
    this.assertOpen();
    return this.scope.run(tx, fn);
  }

  async getJob(id: string): Promise<Job | null> {
    return this.onJob(id, (core, jobId) => core.storage.jobs.getJob(jobId));
  }

  /** Wait for a job's output: JobFailedError, JobNotFoundError or ResultTimeoutError otherwise. */
  result<Q extends RegisteredQueue>(
    id: JobId<Q>,
    options?: { timeoutSeconds?: number },
  ): Promise<QueueOutputOf<Q>>;
  result<Output = unknown>(id: string, options?: { timeoutSeconds?: number }): Promise<Output>;
  async result<Output = unknown>(id: string, options: { timeoutSeconds?: number } = {}): Promise<Output> {
    const request = checkResultRequest(id, options);
    return this.whenReady((core) => waitForResult<Output>(core, request));
  }

  /**
   * Store a signal for a job's wait; refused (nothing stored) with a reason when it cannot be
   * used. Given `{ actor }` or `{ source }` (an operator's signal), a stored one is audited.
   * With `{ tx }` (or inside `withTransaction`) it is stored in your transaction and wakes the
   * job only once that commits.
   */
  async signal(
    jobId: string,
    name: string,
    payload?: unknown,
    options?: SignalOptions,
  ): Promise<SignalDelivery> {
    const request = checkSignalRequest(jobId, name, payload);
    const { on, audit } = splitSignalOptions(options, (own) => this.scope.joined(own));
    const deliver = (core: EngineCore) =>
      core.storage.workflow.deliverSignal(request.jobId, request.name, request.payload, on);
    // As for adds: inside a caller's transaction the database is touched through it alone.
    if (on !== undefined) {
      this.assertOpen();
      return deliver(this.core);
    }
    if (audit === undefined) return this.whenReady(deliver);
    const target = { jobId: request.jobId, detail: request.name };
    return this.audit(audit, 'signal', target, deliver, (d) => (d.delivered ? 1 : 0));
  }

  /**
   * Complete a workflow's callback token (`ctx.createToken`) with `data`, waking its wait. Once
   * only: a second call resolves `{ status: 'already-completed' }` and changes nothing. Throws
   * TokenNotFoundError, TokenClosedError (expired, cancelled, or its job finished) or
   * TokenPayloadError (over `tokens.maxPayloadBytes`, or refused by its schema); nothing written.
   */
  async completeToken(id: string, data?: unknown): Promise<tokens.TokenCompletion> {
    const request = tokens.checkCompleteRequest(this.core, id, data);
    return this.whenReady((core) => tokens.completeToken(core, request));
  }

  /** Cancel a pending callback token: its wait resolves `{ ok: false, reason: 'cancelled' }`. */
  async cancelToken(id: string): Promise<tokens.TokenCancellation> {
    const tokenId = tokens.checkTokenId(id);
    return this.whenReady((core) => tokens.cancelToken(core, tokenId));
  }

  /** A job with its checkpoints, signals (pending or consumed) and children; null when absent. */
  async getJobDetail(id: string): Promise<JobDetail | null> {
    return this.onJob(id, getJobDetail);
  }

  /** Workers registered in the database, live and gone (no beat for three intervals). */
  async listWorkers(): Promise<WorkerRecord[]> {
    return this.whenReady((core) => core.storage.workers.listWorkers());
  }

  /** Serve the dashboard on its own HTTP server (loaded on first use); to mount it: `tidemark/dashboard`. */
  async dashboard(options: DashboardOptions = {}): Promise<RunningDashboard> {
    this.assertOpen();
    const { serveDashboard } = await import('./dashboard/server.js');
    return serveDashboard(this, options, this.dashboards);
  }

  /** Record OpenTelemetry metrics from this engine's events; returns a function that detaches. */
  instrument(meter: MeterLike, options: InstrumentOptions = {}): () => void {
    this.assertOpen();
    return instrumentEngine(this.core, meter, options);
  }

  /** Create a worker (not started). */
  worker(options: WorkerOptions = {}): Worker {
    this.assertOpen();
    const { options: resolved, warnings } = resolveWorkerOptions(options);
    const worker = new Worker(this.core, resolved, warnings);
    this.workers.add(worker);
    return worker;
  }

  /** Opt in to a clean shutdown on SIGTERM and SIGINT: stop workers, close, exit; returns an undo. */
  stopOnSignals(options: StopOnSignalsOptions = {}): () => void {
    return stopOnSignals({ core: this.core, workers: this.workers, close: () => this.close() }, options);
  }

  /** Stop every worker and close the database (when Tidemark opened it). */
  async close(): Promise<void> {
    if (!this.markClosed()) return;
    await Promise.all([...this.dashboards].map((dashboard) => dashboard.close()));
    await Promise.all([...this.workers].map((worker) => worker.stop()));
    await this.core.registry.flush().catch(() => {});
    await this.core.storage.close();
  }
}
