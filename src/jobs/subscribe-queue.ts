import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { checkId } from '../options/check.js';
import type { QueueChangeCursor } from '../storage/storage.js';
import { notifications, Wake, wakeOnAbort } from './change-signals.js';
import {
  type JobUpdate,
  type SubscribeOptions,
  subscribeOptions,
  toUpdate,
  updateSignature,
} from './subscribe.js';

/** Rows each walk of a read takes at most; a full walk is read again at once. */
const WALK_LIMIT = 500;

/** The shortest gap between two reads: a burst of wake-ups makes one read, not one each. */
const MIN_GAP_MS = 100;

/**
 * The changes of a queue's jobs, without end (the caller stops iterating): first its running
 * jobs, then each job that is added, starts, says something (progress, metadata), leaves
 * running (a retry, a wait) or finishes, as one JobUpdate per state read. A read walks the
 * jobs added past the last one read, the running jobs, the finishes past the last one read
 * and the jobs seen running last time, at most 500 rows a walk; it runs when this process's
 * workers or a notes write announce a change of the queue, at most every 100 ms, and at least
 * every `pollSeconds`. States in between coalesce.
 */
export async function* subscribeQueue(
  core: EngineCore,
  queue: string,
  input: SubscribeOptions | undefined,
): AsyncGenerator<JobUpdate, void, undefined> {
  const { pollSeconds, signal } = subscribeOptions.read(input ?? {}, 'options');
  const wake = new Wake();
  const ours = (event: { queue: string }) => event.queue === queue && wake.fire();
  const offs = [
    wakeOnAbort(wake, signal),
    core.events.on('job:added', ours),
    core.events.on('job:started', ours),
    core.events.on('job:completed', ours),
    core.events.on('job:failed', ours),
    core.events.on('job:suspended', ours),
    core.events.on('job:deferred', ours),
    core.events.on('job:lost', ours),
    await notifications(core).on(`queue:${queue}`, () => wake.fire()),
  ];
  try {
    const cursor = await core.storage.jobs.queueChangesStart(queue);
    /** The jobs last read running, by their state: read again until they are not. */
    let running = new Map<string, string>();
    /** Finished jobs shown (read as jobs that ran) whose finish the finish walk has yet to pass. */
    const shownAhead = new Set<string>();
    while (!signal?.aborted) {
      const readAt = Date.now();
      const rows = await core.storage.jobs.readQueueChanges(queue, cursor, [...running.keys()], WALK_LIMIT);
      const nowRunning = new Map<string, string>();
      let added = 0;
      let finished = 0;
      for (const row of rows) {
        if (row.added) {
          added++;
          if (BigInt(row.job.id) > BigInt(cursor.after_id)) cursor.after_id = row.job.id;
        }
        if (row.finishedWalk && row.finishedKey !== null) {
          finished++;
          advanceFinished(cursor, row.finishedKey, row.job.id);
        }
      }
      const shown: JobUpdate[] = [];
      for (const { job, finishedWalk, finishedKey } of rows) {
        const update = toUpdate(job);
        const signature = updateSignature(update);
        if (job.status === 'active') nowRunning.set(job.id, signature);
        if (finishedWalk && shownAhead.delete(job.id)) continue;
        if (!finishedWalk && finishedKey !== null && isPast(cursor, finishedKey, job.id))
          shownAhead.add(job.id);
        if (running.get(job.id) !== signature) shown.push(update);
      }
      running = nowRunning;
      yield* shown;
      if (added >= WALK_LIMIT || finished >= WALK_LIMIT) continue;
      await wake.wait(pollSeconds * 1000);
      const gap = MIN_GAP_MS - (Date.now() - readAt);
      if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
    }
  } finally {
    for (const off of offs) off();
  }
}

/** Whether a finish (key, id) lies past the finish cursor: the finish walk has yet to return it. */
function isPast(cursor: QueueChangeCursor, key: string, id: string): boolean {
  return (
    key > cursor.finished_after ||
    (key === cursor.finished_after && BigInt(id) > BigInt(cursor.finished_after_id))
  );
}

/** Move the finish cursor to (key, id) when that is past it; the walk returns them in order. */
function advanceFinished(cursor: QueueChangeCursor, key: string, id: string): void {
  if (!isPast(cursor, key, id)) return;
  cursor.finished_after = key;
  cursor.finished_after_id = id;
}

/** What `tm.subscribe` watches besides one job: a whole queue. */
export interface QueueTarget {
  queue: string;
}

/** The longest queue name a stream takes, as the job filter's. */
const MAX_QUEUE_NAME = 200;

/** A job id, or `{ queue }`, checked; InvalidOptionError naming what was wrong otherwise. */
export function subscribeTarget(target: unknown): { id: string } | QueueTarget {
  if (typeof target === 'string') return { id: checkId(target) };
  if (typeof target !== 'object' || target === null || Array.isArray(target)) {
    throw new InvalidOptionError('target', 'a job id or { queue }', target);
  }
  const extra = Object.keys(target).filter((key) => key !== 'queue');
  if (extra.length > 0) throw new InvalidOptionError(`target.${extra[0]}`, 'only queue', target);
  const { queue } = target as { queue?: unknown };
  if (typeof queue !== 'string' || queue.length === 0 || queue.length > MAX_QUEUE_NAME) {
    throw new InvalidOptionError('target.queue', `a queue name of 1 to ${MAX_QUEUE_NAME} characters`, queue);
  }
  return { queue };
}
