import { InvalidJobStateError } from '../../errors.js';
import { isFinished } from '../../job-status.js';
import type { StateActionName } from '../../jobs/bulk-actions.js';
import { cliActor } from '../actor-option.js';
import { type CliIo, UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, jobIdArgument, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { BULK_OPTIONS, bulkHelp, isBulk, runBulkCommand } from './bulk-action.js';

function jobCommand(name: StateActionName, summary: string, description: string): Command {
  const usage = `Usage: tidemark ${name} ID [--database URL|PATH] [--schema NAME]
       tidemark ${name} --status S [--queue Q] [--since SECONDS | --from DATE --to DATE]
                 [--text TEXT] [--dry-run] [--batch-size N] [--json] [--database URL|PATH] [--schema NAME]

${description}

With --status instead of an ID it acts on every job matching the filter, in batches, each
job through the same checks as on its own; a job that cannot be changed is reported by
reason, and the rest go on. Run it with --dry-run first to see how many match.

Options:
${bulkHelp(name)}
${DATABASE_HELP}`;
  return {
    name,
    summary,
    usage,
    async run(args: string[], io: CliIo): Promise<number> {
      const { values, positionals } = parseCommandArgs({
        args,
        options: BULK_OPTIONS,
        allowPositionals: true,
        strict: true,
      });
      if (isBulk(values)) {
        if (positionals.length > 0)
          throw new UsageError(`give a job id or filter options, not both\n\n${usage}`);
        return runBulkCommand(name, values, io);
      }
      const id = jobIdArgument(positionals, usage);
      const tm = await openForCommand(values, io);
      try {
        const before = (await tm.getJob(id))?.status;
        if (name === 'cancel' && before !== undefined && isFinished(before)) {
          // tm.cancelJob is idempotent for code; a person typing cancel expects to be told.
          throw new InvalidJobStateError(id, before, 'only a job that has not finished can be cancelled');
        }
        const act = { retry: tm.retryJob, cancel: tm.cancelJob, 'run-now': tm.runNow }[name];
        const job = await act.call(tm, id, cliActor(values, io));
        io.stdout.write(`Job ${job.id} (${job.queue}): ${before ?? '?'} → ${job.status}\n`);
        return 0;
      } finally {
        await tm.close();
      }
    },
  };
}

export const retryCommand = jobCommand(
  'retry',
  'run a finished or retry-waiting job again (or all matching --status)',
  'Runs a finished (failed, cancelled, expired, completed) or retry-waiting job again now,\nwith its descendants that did not complete.',
);

export const cancelCommand = jobCommand(
  'cancel',
  'cancel a job and its in-flight descendants (or all matching --status)',
  "Cancels a job that has not finished, and its in-flight descendants. A running handler's\nAbortSignal fires.",
);

export const runNowCommand = jobCommand(
  'run-now',
  'run a scheduled or retry-waiting job now (or all matching --status)',
  'Makes a pending job due later, or a retry-waiting one, due now; its attempts are kept, and\nit waits for a free slot like any due job.',
);
