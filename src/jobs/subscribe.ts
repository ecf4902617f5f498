import type { EngineCore } from '../engine-core.js';
import { JobNotFoundError } from '../errors.js';
import { isFinished, type JobStatus } from '../job-status.js';
import type { Progress } from '../model/notes.js';
import { seconds } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';

/** One state of a job, as `tm.subscribe` gives it. */
export interface JobUpdate {
  id: string;
  status: JobStatus;
  attempts: number;
  progress: Progress | null;
  metadata: Readonly<Record<string, unknown>>;
  /** The job's output once completed, else null. */
  output: unknown;
}

/** `tm.subscribe`'s options, declared once. */
export const subscribeOptions = new OptionSet('options', {
  pollSeconds: seconds(
    { min: 0.05, max: 3_600 },
    {
      default: 1,
      description:
        'the longest wait between reads of the job: what no notification announces (a change made by a worker in another process, a lost notification) shows within it',
    },
  ),
});

/** Options of `tm.subscribe`. */
export type SubscribeOptions = OptionsOf<typeof subscribeOptions.properties>;

/**
 * The job's states as they change: the current one first, then each change of its status,
 * attempts, progress or metadata, ending after a finished status (or when the job is deleted,
 * or the caller stops iterating). A change is read when something announces it (this
 * process's workers finishing or starting it, the notification every write of notes sends)
 * and at least every `pollSeconds`; changes in between coalesce into the latest state.
 * JobNotFoundError when there is no such job to begin with.
 */
export async function* subscribeJob(
  core: EngineCore,
  jobId: string,
  input: SubscribeOptions | undefined,
): AsyncGenerator<JobUpdate, void, undefined> {
  const { pollSeconds } = subscribeOptions.read(input ?? {}, 'options');
  const wake = new Wake();
  const mine = (event: { id: string }) => event.id === jobId && wake.fire();
  const offs = [
    core.events.on('job:started', mine),
    core.events.on('job:completed', mine),
    core.events.on('job:failed', mine),
    core.events.on('job:lost', mine),
    await notifications(core).on(jobId, () => wake.fire()),
  ];
  try {
    let last: string | null = null;
    for (;;) {
      const job = await core.storage.jobs.getJob(jobId);
      if (job === null) {
        if (last === null) throw new JobNotFoundError(jobId);
        return;
      }
      const update: JobUpdate = {
        id: job.id,
        status: job.status,
        attempts: job.attempts,
        progress: job.progress,
        metadata: job.metadata,
        output: job.status === 'completed' ? job.output : null,
      };
      const seen = JSON.stringify([update.status, update.attempts, update.progress, update.metadata]);
      if (seen !== last) {
        last = seen;
        yield update;
      }
      if (isFinished(job.status)) return;
      await wake.wait(pollSeconds * 1000);
    }
  } finally {
    for (const off of offs) off();
  }
}

/** A wait that ends at a timeout or when fired; a fire with nobody waiting ends the next wait at once. */
class Wake {
  private fired = false;
  private resolve: (() => void) | null = null;

  fire(): void {
    if (this.resolve === null) this.fired = true;
    else this.resolve();
  }

  wait(ms: number): Promise<void> {
    if (this.fired) {
      this.fired = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolve = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }
}

/**
 * One LISTEN per engine for its subscribers, opened with the first and closed with the last:
 * an engine nobody subscribes through holds no connection for it.
 */
class Notifications {
  private readonly byJob = new Map<string, Set<() => void>>();
  private subscription: Promise<{ close(): Promise<void> }> | null = null;

  constructor(private readonly core: EngineCore) {}

  async on(jobId: string, listener: () => void): Promise<() => void> {
    let listeners = this.byJob.get(jobId);
    if (listeners === undefined) {
      listeners = new Set();
      this.byJob.set(jobId, listeners);
    }
    listeners.add(listener);
    this.subscription ??= this.core.storage.listen((payload) => this.deliver(payload));
    try {
      await this.subscription;
    } catch (error) {
      // Without notifications the subscriber still reads the job every pollSeconds.
      this.subscription = null;
      this.core.logger.warn('tm.subscribe could not listen for notifications; reading by polling', {
        error: String(error),
      });
    }
    return () => this.off(jobId, listener);
  }

  private deliver(payload: string): void {
    if (!payload.startsWith('n:')) return;
    for (const listener of this.byJob.get(payload.slice(2)) ?? []) listener();
  }

  private off(jobId: string, listener: () => void): void {
    const listeners = this.byJob.get(jobId);
    listeners?.delete(listener);
    if (listeners?.size === 0) this.byJob.delete(jobId);
    if (this.byJob.size > 0 || this.subscription === null) return;
    const closing = this.subscription;
    this.subscription = null;
    void closing.then((subscription) => subscription.close()).catch(() => {});
  }
}

const hubs = new WeakMap<EngineCore, Notifications>();

function notifications(core: EngineCore): Notifications {
  let hub = hubs.get(core);
  if (hub === undefined) {
    hub = new Notifications(core);
    hubs.set(core, hub);
  }
  return hub;
}
