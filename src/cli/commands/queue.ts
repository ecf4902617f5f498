import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { actionAndName, DATABASE_HELP, DATABASE_OPTIONS, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const USAGE = `Usage: tidemark queue pause|resume NAME [--database URL|PATH] [--schema NAME]

Pauses a queue (no worker claims its jobs; running ones finish) or resumes it, cluster-wide,
through tm.pauseQueue / tm.resumeQueue. An unknown queue exits 1.

Options:
${ACTOR_HELP}
${DATABASE_HELP}`;

export const queueCommand: Command = {
  name: 'queue',
  summary: 'pause or resume a queue',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, ...ACTOR_OPTIONS },
      allowPositionals: true,
      strict: true,
    });
    const [action, name] = actionAndName(positionals, ['pause', 'resume'] as const, 'queue name', USAGE);
    return withCommandEngine(values, io, async (tm) => {
      const by = cliActor(values, io);
      if (action === 'pause') await tm.pauseQueue(name, by);
      else await tm.resumeQueue(name, by);
      io.stdout.write(`${action === 'pause' ? 'Paused' : 'Resumed'} queue ${name}.\n`);
      return 0;
    });
  },
};
