import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';
import { renderTable } from '../table.js';
import { batchSizeOption } from './batch-size-option.js';

const USAGE = `Usage: tidemark sweep [--dry-run] [--batch-size N] [--database URL|PATH] [--schema NAME]

Runs one retention pass now: deletes every job tree whose frozen windows have all passed,
consumed signals and log lines past their own windows, and expired unique locks. With --dry-run, shows what
it would delete and deletes nothing. While retention is paused it deletes nothing.

Options:
  --dry-run             show what would be deleted; delete nothing
  --batch-size N        trees per delete statement, 1-10000 (default 1000; larger is clamped)
${DATABASE_HELP}`;

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'run one retention pass now (--dry-run to preview)',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, 'dry-run': { type: 'boolean' }, 'batch-size': { type: 'string' } },
      strict: true,
    });
    const batchSize = batchSizeOption(values['batch-size']);
    const tm = await openForCommand(values, io);
    try {
      const dryRun = values['dry-run'] === true;
      const result = dryRun
        ? await tm.sweep({ dryRun: true })
        : await tm.sweep(batchSize === undefined ? {} : { batchSize });
      io.stdout.write(
        `${dryRun ? 'Dry run: a sweep now would delete' : 'Deleted'} ${result.jobs} jobs, ${result.signals} consumed signals, ${result.logLines ?? 0} log lines, ${result.uniqueLocks} expired unique locks.${dryRun ? ' Nothing was deleted.' : ''}\n`,
      );
      if (result.byQueue.length > 0) {
        io.stdout.write(
          `\n${renderTable(
            ['queue', 'status', 'jobs'],
            result.byQueue.map((r) => [r.queue, r.status, String(r.count)]),
          )}\n`,
        );
      }
      if (result.paused) {
        io.stdout.write(
          `Retention is paused cluster-wide: ${dryRun ? 'a sweep would delete nothing' : 'nothing was deleted'} until 'tidemark retention resume'.\n`,
        );
      }
      const error = 'error' in result ? result.error : undefined;
      if (error) {
        io.stderr.write(`tidemark sweep: stopped early: ${error}\n`);
        return 1;
      }
      return 0;
    } finally {
      await tm.close();
    }
  },
};
