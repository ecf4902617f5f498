import type { CliIo } from '../cli-io.js';
import { UsageError } from '../cli-io.js';
import type { Command } from '../command.js';
import { jsonOption } from '../json-option.js';
import { DATABASE_HELP, DATABASE_OPTIONS, withCommandEngine } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const USAGE = `Usage: tidemark add QUEUE [--data JSON] [--options JSON] [--database URL|PATH] [--schema NAME]

Adds one job to a queue that exists (a process created it), through tm.addJob, and prints its
id. --options takes addJob's options as JSON ({"delaySeconds":60,"priority":5,"tags":["ops"]});
a bad option exits 1 naming it, and nothing is added.

Options:
  --data JSON           the job's data (default null)
  --options JSON        the other options of addJob
${DATABASE_HELP}`;

export const addCommand: Command = {
  name: 'add',
  summary: 'add one job to a queue',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs({
      args,
      options: { ...DATABASE_OPTIONS, data: { type: 'string' }, options: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== 1) throw new UsageError(`expected one queue name\n\n${USAGE}`);
    const options = jsonOption('options', values.options) ?? {};
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new UsageError('--options must be a JSON object of addJob options');
    }
    const data = jsonOption('data', values.data) ?? null;
    return withCommandEngine(values, io, async (tm) => {
      const added = await tm.addJob({ ...options, queue: positionals[0], data });
      io.stdout.write(
        `${added.deduplicated ? 'Already added' : 'Added'}: job ${added.id} (${positionals[0]}).\n`,
      );
      return 0;
    });
  },
};
