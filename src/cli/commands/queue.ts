import { isOneOf } from '../../model/guards.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const ACTIONS = ['pause', 'resume'] as const;

const USAGE = `Usage: tidemark queue pause|resume NAME [--database URL|PATH] [--schema NAME]

Pauses a queue (no worker claims its jobs; running ones finish) or resumes it, cluster-wide,
through tm.pauseQueue / tm.resumeQueue. An unknown queue exits 1.

Options:
${DATABASE_HELP}`;

export const queueCommand: Command = {
  name: 'queue',
  summary: 'pause or resume a queue',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: DATABASE_OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    const [action, name, ...rest] = positionals;
    if (!isOneOf(ACTIONS, action) || name === undefined || rest.length > 0) {
      throw new UsageError(`expected pause or resume and one queue name\n\n${USAGE}`);
    }
    const tm = await openForCommand(values, io);
    try {
      if (action === 'pause') await tm.pauseQueue(name);
      else await tm.resumeQueue(name);
      io.stdout.write(`${action === 'pause' ? 'Paused' : 'Resumed'} queue ${name}.\n`);
      return 0;
    } finally {
      await tm.close();
    }
  },
};
