import { isJobStatus } from '../../job-status.js';
import type { BulkActionName, BulkJobFilter, BulkOutcome, StateActionName } from '../../jobs/bulk-actions.js';
import { ACTIONABLE } from '../../jobs/bulk-filter.js';
import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import { type CliIo, UsageError } from '../cli-io.js';
import { DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { batchSizeOption } from './batch-size-option.js';

/** The options of `tidemark retry` / `cancel` / `run-now` that choose jobs by filter instead of by id. */
export const BULK_OPTIONS = {
  ...DATABASE_OPTIONS,
  ...ACTOR_OPTIONS,
  queue: { type: 'string' },
  status: { type: 'string' },
  since: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  text: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'batch-size': { type: 'string' },
  json: { type: 'boolean' },
} as const;

export type BulkValues = {
  database?: string;
  schema?: string;
  queue?: string;
  status?: string;
  since?: string;
  from?: string;
  to?: string;
  text?: string;
  'dry-run'?: boolean;
  'batch-size'?: string;
  json?: boolean;
  actor?: string;
};

export function bulkHelp(name: StateActionName): string {
  return `  --status S            the status of the jobs to ${name} (${ACTIONABLE[name].join(', ')})
  --queue Q             only this queue (default all)
  --since SECONDS       only jobs created in the last SECONDS
  --from DATE, --to DATE  only jobs created in [from, to) (ISO 8601)
  --text TEXT           only jobs whose data or error contains TEXT (case-insensitive)
  --dry-run             count the matching jobs; change nothing
  --batch-size N        jobs chosen per batch, 1-10000 (default 500)
  --json                print the outcome as JSON
${ACTOR_HELP}`;
}

/** The options that choose jobs in bulk, or say how to act on them. */
const FILTER_OPTIONS: readonly (keyof BulkValues)[] = [
  'queue',
  'status',
  'since',
  'from',
  'to',
  'text',
  'dry-run',
  'batch-size',
];

/** Whether any filter option was given: then the command acts in bulk, not on one id. */
export function isBulk(values: BulkValues): boolean {
  return FILTER_OPTIONS.some((name) => values[name] !== undefined);
}

/** The words of each action's report: what it did, and its first word. */
const VERBS: Record<BulkActionName, { past: string; first: string }> = {
  retry: { past: 'retried', first: 'Retried' },
  cancel: { past: 'cancelled', first: 'Cancelled' },
  'run-now': { past: 'run now', first: 'Made due now' },
  fork: { past: 'forked', first: 'Forked' },
};

/** Retry, cancel or run now every job matching the options, through tm.retryJobs / cancelJobs / runJobsNow. */
export async function runBulkCommand(name: StateActionName, values: BulkValues, io: CliIo): Promise<number> {
  const filter = filterOf(name, values);
  const batchSize = batchSizeOption(values['batch-size']);
  const options = { dryRun: values['dry-run'] === true, ...(batchSize !== undefined ? { batchSize } : {}) };
  const tm = await openForCommand(values, io);
  try {
    const act = { retry: tm.retryJobs, cancel: tm.cancelJobs, 'run-now': tm.runJobsNow }[name];
    const outcome = await act.call(tm, filter, { ...options, ...cliActor(values, io) });
    io.stdout.write(
      values.json ? `${JSON.stringify(outcome, null, 2)}\n` : report(outcome, describe(filter)),
    );
    return 0;
  } finally {
    await tm.close();
  }
}

function filterOf(name: StateActionName, values: BulkValues): BulkJobFilter {
  const status = values.status;
  if (status === undefined) throw new UsageError(`--status is required to ${name} jobs by filter`);
  if (!isJobStatus(status) || !ACTIONABLE[name].includes(status)) {
    throw new UsageError(`--status '${status}': ${name} acts on ${ACTIONABLE[name].join(', ')}`);
  }
  const filter: BulkJobFilter = { status };
  if (values.queue !== undefined) filter.queue = values.queue;
  if (values.since !== undefined) {
    const seconds = Number(values.since);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new UsageError(`--since must be a number of seconds above 0, got '${values.since}'`);
    }
    filter.since = seconds;
  }
  if (values.from !== undefined) filter.from = values.from;
  if (values.to !== undefined) filter.to = values.to;
  if (values.text !== undefined) filter.q = values.text;
  return filter;
}

function describe(filter: BulkJobFilter): string {
  return `${filter.status} jobs${filter.queue ? ` of queue ${filter.queue}` : ''}`;
}

function report(outcome: BulkOutcome, what: string): string {
  const verb = VERBS[outcome.action];
  if (outcome.dryRun) return `Dry run: ${outcome.matched} ${what} match. Nothing was ${verb.past}.\n`;
  const lines = [`${verb.first} ${outcome.done} of ${outcome.matched} matching ${what}.`];
  for (const [reason, n] of Object.entries(outcome.refused)) lines.push(`  refused: ${n} ${reason}`);
  for (const refusal of outcome.refusals) lines.push(`    job ${refusal.id}: ${refusal.message}`);
  return `${lines.join('\n')}\n`;
}
