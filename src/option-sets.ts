import { childOptions, jobOptions } from './intake/job-options.js';
import { bulkActionOptions, bulkFilterOptions } from './jobs/bulk-filter.js';
import { jobLogsOptions } from './jobs/job-logs.js';
import { countJobsOptions, listJobsOptions } from './jobs/list-jobs.js';
import { resultOptions } from './jobs/result.js';
import { subscribeOptions } from './jobs/subscribe.js';
import { sweepNowOptions } from './maintenance/retention-sweep/sweep-now.js';
import { instrumentOptions } from './metrics/instrument.js';
import { apiServerOptions } from './options/api-options.js';
import { dashboardOptions } from './options/dashboard-options.js';
import { openOptions } from './options/open-options.js';
import type { OptionSet } from './options/option-set.js';
import { limiterOptions } from './queues/limiters.js';
import { queueOptions } from './queues/queue-options.js';
import { applyRetentionOptions } from './retention/apply-retention.js';
import { holdOptions } from './retention/holds.js';
import { pauseOptions } from './retention/pause.js';
import { removeJobsOptions } from './retention/remove-jobs.js';
import { scheduleOptions } from './schedule/schedules.js';
import { testKitOptions } from './testing/test-kit-options.js';
import { stopOnSignalsOptions } from './worker/stop-on-signals.js';
import { stopOptions, workerOptions } from './worker/worker-options.js';

/**
 * Every option set, each under the id its table has in docs/configuration.md
 * (`<!-- options:<id> -->`), and its JSON Schema elsewhere. Nothing at run time imports this
 * catalogue: the docs script, the docs test and the schema exports do.
 */
export const OPTION_SETS = {
  open: openOptions,
  queue: queueOptions,
  limiter: limiterOptions,
  job: jobOptions,
  child: childOptions,
  worker: workerOptions,
  schedule: scheduleOptions,
  dashboard: dashboardOptions,
  api: apiServerOptions,
  result: resultOptions,
  'worker-stop': stopOptions,
  'stop-on-signals': stopOnSignalsOptions,
  instrument: instrumentOptions,
  'bulk-filter': bulkFilterOptions,
  'bulk-options': bulkActionOptions,
  'list-jobs': listJobsOptions,
  'count-jobs': countJobsOptions,
  'job-logs': jobLogsOptions,
  subscribe: subscribeOptions,
  sweep: sweepNowOptions,
  'remove-jobs': removeJobsOptions,
  'hold-jobs': holdOptions,
  'pause-retention': pauseOptions,
  'apply-retention': applyRetentionOptions,
  'test-kit': testKitOptions,
  // biome-ignore lint/suspicious/noExplicitAny: a catalogue of sets of different shapes
} satisfies Record<string, OptionSet<any, any>>;

export type OptionSetId = keyof typeof OPTION_SETS;
