import { getJobLogs, type JobLogsOptions } from './jobs/job-logs.js';
import {
  type CountJobsFilter,
  countJobs,
  type JobCount,
  type JobPage,
  type ListJobsFilter,
  listJobs,
} from './jobs/list-jobs.js';
import { type JobUpdate, type SubscribeOptions, subscribeJob, subscribeOptions } from './jobs/subscribe.js';
import { type QueueTarget, subscribeQueue, subscribeTarget } from './jobs/subscribe-queue.js';
import { LimiterCalls } from './limiter-calls.js';
import type { JobLogs } from './model/notes.js';

/**
 * The calls that find jobs and read what they said: the job list with its filters and keyset
 * pages, bounded counts, and a job's log. `Tidemark` extends it; see jobs.md.
 */
export abstract class JobQueryCalls extends LimiterCalls {
  /**
   * One page of the jobs matching `filter` (the bulk actions' filter: queue, status, tags, key,
   * creation times, text), newest first unless `order: 'asc'`; `cursor` fetches the next page.
   * Throws InvalidOptionError naming the field for a bad filter or a cursor that was altered.
   */
  async listJobs(filter?: ListJobsFilter): Promise<JobPage> {
    return this.whenReady((core) => listJobs(core, filter));
  }

  /** How many jobs match `filter`, exactly up to `max` (10,000 unless given). */
  async countJobs(filter?: CountJobsFilter): Promise<JobCount> {
    return this.whenReady((core) => countJobs(core, filter));
  }

  /**
   * A page of the job's log lines (`ctx.log`), oldest first, with the count of lines its caps
   * dropped; null when there is no such job.
   */
  async getJobLogs(id: string, options?: JobLogsOptions): Promise<JobLogs | null> {
    return this.onJob(id, (core, jobId) => getJobLogs(core, jobId, options));
  }

  /**
   * For `for await`, one of two streams. Given a job id: the job's states as they change, the
   * current one first, then each change of its status, attempts, progress or metadata, ending
   * after a finished status (a job that does not exist ends the loop with JobNotFoundError).
   * Given `{ queue }`: the queue's running jobs, then each job of the queue that is added,
   * starts, says something, leaves running or finishes, without end. Break out of the loop to
   * stop. A bad id, queue or option throws InvalidOptionError at once.
   */
  subscribe(
    target: string | QueueTarget,
    options?: SubscribeOptions,
  ): AsyncGenerator<JobUpdate, void, undefined> {
    const read = subscribeTarget(target);
    subscribeOptions.read(options ?? {}, 'options');
    // The engine is awaited once iteration begins: an iterator never read rejects nothing.
    const engine = () => this.whenReady(async (core) => core);
    return (async function* () {
      const core = await engine();
      if ('queue' in read) yield* subscribeQueue(core, read.queue, options);
      else yield* subscribeJob(core, read.id, options);
    })();
  }
}
