import { ACTOR_HELP, ACTOR_OPTIONS, cliActor } from '../actor-option.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { jsonOption } from '../json-option.js';
import { DATABASE_HELP, DATABASE_OPTIONS, jobIdArgument, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const USAGE = `Usage: tidemark signal ID NAME [--payload JSON] [--database URL|PATH] [--schema NAME]

Sends a signal to a job's wait (ctx.waitForSignal), through tm.signal. A signal the job cannot
use (a finished job, a name its queue does not declare) is refused with exit 1 and nothing is
stored.

Options:
  --payload JSON        the signal's payload (default none)
${ACTOR_HELP}
${DATABASE_HELP}`;

export const signalCommand: Command = {
  name: 'signal',
  summary: "send a signal to a job's wait",
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, ...ACTOR_OPTIONS, payload: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 2) throw new UsageError(`expected a job id and a signal name\n\n${USAGE}`);
    const id = jobIdArgument(positionals.slice(0, 1), USAGE);
    const name = positionals[1];
    const payload = jsonOption('payload', values.payload);
    return withCommandEngine(values, io, async (tm) => {
      const delivery = await tm.signal(id, name, payload, cliActor(values, io));
      io.stdout.write(`${JSON.stringify(delivery)}\n`);
      return 0;
    });
  },
};
