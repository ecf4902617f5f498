import type { EngineCore } from '../engine-core.js';
import type { Job } from '../model/job.js';
import type { AttemptTracing } from '../model/tracing.js';
import type { CheckpointRow } from '../model/workflow.js';
import type { ResolvedQueue } from '../queues/queue-options.js';
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
  /** The run's history, made by the first workflow call (or at once, for a run woken from a wait). */
  history: HistoryBook | null = null;
  private namesMade: RunNames | null = null;
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

  protected loadCheckpoints(): Promise<Map<string, CheckpointRow>> {
    this.checkpoints ??= this.deps.core.storage.workflow
      .listCheckpoints(this.job.id)
      .then((rows) => new Map(rows.map((row) => [row.name, row])));
    return this.checkpoints;
  }

  protected async save(name: string, kind: string, outputText: string): Promise<void> {
    const saved = await this.deps.core.storage.workflow.saveCheckpoint(
      this.job.id,
      this.deps.token,
      name,
      kind,
      outputText,
    );
    if (!saved) throw new LostOwnership(this.job.id);
    (await this.loadCheckpoints()).set(name, {
      name,
      kind,
      output: JSON.parse(outputText),
      createdAt: new Date(this.deps.core.clock.now()),
    });
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
  }

  private newHistory(woken: Wait | null): HistoryBook {
    return new HistoryBook(this.job, woken, () => this.now());
  }
}
