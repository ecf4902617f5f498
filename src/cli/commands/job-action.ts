import { parseArgs } from 'node:util';
import { InvalidJobStateError } from '../../errors.js';
import { isFinished } from '../../job-status.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, jobIdArgument, openForCommand } from '../open-database.js';

function jobCommand(name: 'retry' | 'cancel', summary: string, description: string): Command {
  const usage = `Usage: tidemark ${name} ID [--database URL|PATH] [--schema NAME]

${description}

Options:
${DATABASE_HELP}`;
  return {
    name,
    summary,
    usage,
    async run(args: string[], io: CliIo): Promise<number> {
      const { values, positionals } = parseArgs({
        args,
        options: DATABASE_OPTIONS,
        allowPositionals: true,
        strict: true,
      });
      const id = jobIdArgument(positionals, usage);
      const tm = await openForCommand(values, io);
      try {
        const before = (await tm.getJob(id))?.status;
        if (name === 'cancel' && before !== undefined && isFinished(before)) {
          // tm.cancelJob is idempotent for code; a person typing cancel expects to be told.
          throw new InvalidJobStateError(id, before, 'only a job that has not finished can be cancelled');
        }
        const job = name === 'retry' ? await tm.retryJob(id) : await tm.cancelJob(id);
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
  'run a finished or retry-waiting job again now',
  'Runs a finished (failed, cancelled, expired, completed) or retry-waiting job again now,\nwith its descendants that did not complete.',
);

export const cancelCommand = jobCommand(
  'cancel',
  'cancel a job and its in-flight descendants',
  "Cancels a job that has not finished, and its in-flight descendants. A running handler's\nAbortSignal fires.",
);
