import type { EngineHandle } from '../engine-handle.js';
import type { AddJobsOptions } from '../intake/add-jobs.js';
import type { AddJobInput, AddJobResult } from '../intake/job-request.js';
import type { JobPage, ListJobsFilter } from '../jobs/list-jobs.js';
import type { JobUpdate, SubscribeOptions } from '../jobs/subscribe.js';
import type { AuditOptions as By } from '../model/audit.js';
import type { Job } from '../model/job.js';
import type { SignalDelivery } from '../workflow/signal.js';

/**
 * The engine as the HTTP API uses it: the public calls its routes make, each route a thin
 * layer over one of them. A Tidemark engine is one; the API names this port rather than the
 * engine's class, so it depends only on what it calls.
 */
export interface ApiEngine extends EngineHandle {
  addJob(input: AddJobInput, options?: AddJobsOptions): Promise<AddJobResult>;
  addJobs(inputs: AddJobInput[], options?: AddJobsOptions): Promise<AddJobResult[]>;
  getJob(id: string): Promise<Job | null>;
  listJobs(filter?: ListJobsFilter): Promise<JobPage>;
  subscribe(id: string, options?: SubscribeOptions): AsyncGenerator<JobUpdate, void, undefined>;
  signal(jobId: string, name: string, payload?: unknown, by?: By): Promise<SignalDelivery>;
  cancelJob(id: string, by?: By): Promise<Job>;
  retryJob(id: string, by?: By): Promise<Job>;
}
