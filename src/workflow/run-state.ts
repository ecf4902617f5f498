import type { EngineCore } from '../engine-core.js';
import type { NonDeterminismError } from '../errors.js';
import type { Job } from '../model/job.js';
import type { AttemptTracing } from '../model/tracing.js';
import type { CheckpointRow } from '../model/workflow.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
import { CallRecord, FAILED_STEP, type Placement } from './call-record.js';
import { HistoryBook } from './history-book.js';
import { RunNames } from './job-context.js';
import type { NotesSink } from './note-book.js';
import { LostOwnership, Suspension, type Wait } from './suspend.js';

export interface WorkflowContextDeps {
  /** The engine's parts: its storage, and the intake children go through. */
  core: EngineCore;
  queue: ResolvedQueue;
  job: Job;
  token: string;
  /** The attempt's abort signal, made when first asked for. */
  attempt: { signal(): AbortSignal };
  /** Where what the handler says of its job goes to be written. */
  notes: NotesSink;
  /** The attempt's span, when tracing is on. */
  tracing: AttemptTracing | null;
  /** The wait this run was woken from, when it resumes a parked workflow. */
  woken?: Wait | null;
}

/**
 * What one run of a workflow keeps beside its handler: its checkpoints (read once, on the
 * first workflow call, so plain jobs never pay for them), the names its calls took, its
 * suspension, and its run history. The handler's API is WorkflowContext, built on this.
 */
export class RunState {
  readonly job: Job;
  /**
   * The first suspension raised in this attempt. It decides the attempt's outcome even when
   * the handler caught it, and every later workflow call rethrows it, so a handler that
   * swallows it can neither complete early nor run further steps.
   */
  suspension: Suspension | null = null;
  /**
   * The first call that did not match the run's record (the determinism guard). Like a
   * suspension it decides the attempt's outcome, the job parked as `paused`, even when the
   * handler caught it, and every later workflow call rethrows it.
   */
  nonDeterminism: NonDeterminismError | null = null;
  /** The run's history, made by the first workflow call (or at once, for a run woken from a wait). */
  history: HistoryBook | null = null;
  private namesMade: RunNames | null = null;
  private callsMade: CallRecord | null = null;
  private checkpoints: Promise<Map<string, CheckpointRow>> | null = null;

  /**
   * How far the database clock was ahead of this process when the job was claimed. Timers
   * are made due by the database's clock; judging them by a clock that lags would find a
   * due timer still pending and park the job again at once, over and over.
   */
  private readonly clockLeadMs: number;

  constructor(protected readonly deps: WorkflowContextDeps) {
    this.job = deps.job;
    this.clockLeadMs = Math.max(0, (deps.job.startedAt?.getTime() ?? 0) - deps.core.clock.now());
    if (deps.woken) this.history = this.newHistory(deps.woken);
  }

  /** The run's history book, made on first use: plain jobs never need it. */
  protected get book(): HistoryBook {
    this.history ??= this.newHistory(null);
    return this.history;
  }

  /** Made on the first workflow call: plain jobs never need it. */
  protected get names(): RunNames {
    this.namesMade ??= new RunNames();
    return this.namesMade;
  }

  /**
   * Take this call's place in the run, at once (calls made together keep the order they were
   * made in), then check it against the run's record once that is loaded. A call that does not
   * match throws NonDeterminismError, and so does every later one.
   */
  protected async enter(
    kind: string,
    name: string,
  ): Promise<Placement & { checkpoints: Map<string, CheckpointRow> }> {
    this.throwIfSuspended();
    this.callsMade ??= new CallRecord();
    const index = this.callsMade.enter(kind, name);
    const checkpoints = await this.loadCheckpoints();
    const placement = this.callsMade.place(index, checkpoints.values());
    if (placement.error) {
      this.nonDeterminism ??= placement.error;
      throw placement.error;
    }
    this.throwIfSuspended();
    return { ...placement, checkpoints };
  }

  /**
   * A run that ended well but left recorded calls unmade (the code dropped them): the guard's
   * error, or null. Only a run that made a workflow call has loaded its record to tell.
   */
  unmadeCalls(): NonDeterminismError | null {
    const left = this.callsMade?.leftOver() ?? null;
    if (left !== null) this.nonDeterminism ??= left;
    return left;
  }

  protected loadCheckpoints(): Promise<Map<string, CheckpointRow>> {
    this.checkpoints ??= this.deps.core.storage.workflow
      .listCheckpoints(this.job.id)
      .then((rows) => new Map(rows.map((row) => [row.name, row])));
    return this.checkpoints;
  }

  protected async save(name: string, kind: string, outputText: string, seq: number | null): Promise<void> {
    const saved = await this.deps.core.storage.workflow.saveCheckpoint(
      this.job.id,
      this.deps.token,
      name,
      kind,
      outputText,
      seq,
    );
    if (!saved) throw new LostOwnership(this.job.id);
    (await this.loadCheckpoints()).set(name, {
      name,
      kind,
      output: JSON.parse(outputText),
      createdAt: new Date(this.deps.core.clock.now()),
      seq,
    });
  }

  /**
   * A step that threw leaves a marker at its place, replaced when it succeeds: a later run that
   * runs it again knows the record after it may rightly differ (see CallRecord). Best effort:
   * a marker that cannot be written (the job lost) changes nothing of the attempt's outcome.
   */
  protected async markFailed(name: string, seq: number, error: unknown): Promise<void> {
    if (error instanceof Suspension || error === this.nonDeterminism) return;
    const message = error instanceof Error ? error.message : String(error);
    await this.save(name, FAILED_STEP, JSON.stringify({ error: message.slice(0, 1000) }), seq).catch(
      () => {},
    );
  }

  /** Now by the database's clock, as far as this process can tell. */
  protected now(): number {
    return this.deps.core.clock.now() + this.clockLeadMs;
  }

  protected suspend(wait: Wait, wakeAt: Date | null): Suspension {
    const suspension = new Suspension(wait, wakeAt);
    if (this.suspension === null) {
      this.suspension = suspension;
      this.book.parked(wait, wakeAt);
    }
    return suspension;
  }

  protected throwIfSuspended(): void {
    if (this.suspension) throw this.suspension;
    if (this.nonDeterminism) throw this.nonDeterminism;
  }

  private newHistory(woken: Wait | null): HistoryBook {
    return new HistoryBook(this.job, woken, () => this.now());
  }
}
