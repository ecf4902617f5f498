import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../main.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { renderTable } from '../table.js';

const USAGE = `Usage: tidemark sweep [--dry-run] [--database URL|PATH] [--schema NAME]

Runs one retention pass now: deletes every job tree whose frozen windows have all passed,
consumed signals past their window, and expired unique locks. With --dry-run, shows what
it would delete and deletes nothing.

Options:
  --dry-run             show what would be deleted; delete nothing
${DATABASE_HELP}`;

export const sweepCommand: Command = {
  name: 'sweep',
  summary: 'run one retention pass now (--dry-run to preview)',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseArgs({
      args,
      options: { ...DATABASE_OPTIONS, 'dry-run': { type: 'boolean' } },
      strict: true,
    });
    const tm = await openForCommand(values, io);
    try {
      const dryRun = values['dry-run'] === true;
      const result = await tm.sweep({ dryRun });
      io.stdout.write(
        `${dryRun ? 'Dry run: a sweep now would delete' : 'Deleted'} ${result.jobs} jobs, ${result.signals} consumed signals, ${result.uniqueLocks} expired unique locks.${dryRun ? ' Nothing was deleted.' : ''}\n`,
      );
      if (result.byQueue.length > 0) {
        io.stdout.write(
          `\n${renderTable(
            ['queue', 'status', 'jobs'],
            result.byQueue.map((r) => [r.queue, r.status, String(r.count)]),
          )}\n`,
        );
      }
      const error = (result as { error?: string }).error;
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
