import { childOptions, jobOptions } from './intake/job-options.js';
import { dashboardOptions } from './options/dashboard-options.js';
import { openOptions } from './options/open-options.js';
import type { OptionSet } from './options/option-set.js';
import { queueOptions } from './queues/queue-options.js';
import { scheduleOptions } from './schedule/schedules.js';
import { workerOptions } from './worker/worker-options.js';

/**
 * Every option set, each under the id its table has in docs/configuration.md
 * (`<!-- options:<id> -->`), and its JSON Schema elsewhere. Nothing at run time imports this
 * catalogue: the docs script, the docs test and the schema exports do.
 */
export const OPTION_SETS = {
  open: openOptions,
  queue: queueOptions,
  job: jobOptions,
  child: childOptions,
  worker: workerOptions,
  schedule: scheduleOptions,
  dashboard: dashboardOptions,
  // biome-ignore lint/suspicious/noExplicitAny: a catalogue of sets of different shapes
} satisfies Record<string, OptionSet<any, any>>;

export type OptionSetId = keyof typeof OPTION_SETS;
