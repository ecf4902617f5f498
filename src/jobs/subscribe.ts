import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError, JobNotFoundError } from '../errors.js';
import { isFinished, type JobStatus } from '../job-status.js';
import type { Job } from '../model/job.js';
import type { Progress } from '../model/notes.js';
import { custom, seconds } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import { notifications, Wake, wakeOnAbort } from './change-signals.js';

/** One state of a job, as `tm.subscribe` gives it. */
export interface JobUpdate {
  id: string;
  queue: string;
  status: JobStatus;
  attempts: number;
  progress: Progress | null;
  metadata: Readonly<Record<string, unknown>>;
  /** The job's output once completed, else null. */
  output: unknown;
}

/** A job as a subscriber sees it. */
export function toUpdate(job: Job): JobUpdate {
  return {
    id: job.id,
    queue: job.queue,
    status: job.status,
    attempts: job.attempts,
    progress: job.progress,
    metadata: job.metadata,
    output: job.status === 'completed' ? job.output : null,
  };
}

/** What a subscriber compares to tell a change: the same signature is the same state. */
export function updateSignature(update: JobUpdate): string {
  return JSON.stringify([update.status, update.attempts, update.progress, update.metadata]);
}

/** `tm.subscribe`'s options, declared once. */
export const subscribeOptions = new OptionSet('options', {
  pollSeconds: seconds(
    { min: 0.05, max: 3_600 },
    {
      default: 1,
      description:
        'the longest wait between reads: what no notification announces (a change made by a worker in another process, a lost notification) shows within it',
    },
  ),
  signal: custom<AbortSignal>({
    expected: 'an AbortSignal',
    docType: '`AbortSignal`',
    description:
      'ends the stream when it aborts, even while nothing changes (breaking out of the loop needs an update to break on)',
    check: (value, field) => {
      if (!(value instanceof AbortSignal)) throw new InvalidOptionError(field, 'an AbortSignal', value);
      return value;
    },
  }),
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
  const { pollSeconds, signal } = subscribeOptions.read(input ?? {}, 'options');
  const wake = new Wake();
  const mine = (event: { id: string }) => event.id === jobId && wake.fire();
  const offs = [
    wakeOnAbort(wake, signal),
    core.events.on('job:started', mine),
    core.events.on('job:completed', mine),
    core.events.on('job:failed', mine),
    core.events.on('job:lost', mine),
    await notifications(core).on(`job:${jobId}`, () => wake.fire()),
  ];
  try {
    let last: string | null = null;
    while (!signal?.aborted) {
      const job = await core.storage.jobs.getJob(jobId);
      if (job === null) {
        if (last === null) throw new JobNotFoundError(jobId);
        return;
      }
      const update = toUpdate(job);
      const seen = updateSignature(update);
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
