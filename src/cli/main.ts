import { TidemarkError } from '../errors.js';
import { type CliIo, processIo, UsageError } from './cli-io.js';
import { dashboardCommand } from './commands/dashboard.js';
import { demoCommand } from './commands/demo.js';
import { cancelCommand, retryCommand } from './commands/job-action.js';
import { migrateCommand } from './commands/migrate.js';
import { purgeCommand } from './commands/purge.js';
import { retentionCommand } from './commands/retention.js';
import { statsCommand } from './commands/stats.js';
import { sweepCommand } from './commands/sweep.js';

/** A `tidemark` subcommand. */
export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: CliIo): Promise<number>;
}

export const commands: Command[] = [
  demoCommand,
  dashboardCommand,
  migrateCommand,
  statsCommand,
  purgeCommand,
  sweepCommand,
  retentionCommand,
  retryCommand,
  cancelCommand,
];

const HELP = () => `tidemark — durable jobs and workflows on PostgreSQL or embedded PGlite

Usage: tidemark <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n')}

Options common to commands that open a database:
  --database URL|PATH   postgres://… URL or embedded folder (default ./.tidemark;
                        env TIDEMARK_DATABASE_URL)
  --schema NAME         SQL schema of Tidemark's tables (default tidemark; env TIDEMARK_SCHEMA)
Run 'tidemark <command> --help' for a command's options.
`;

/** Run the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(HELP());
    return name ? 0 : 2;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    io.stderr.write(`tidemark: unknown command '${name}'\n\n${HELP()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout.write(`${command.usage}\n`);
    return 0;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof TidemarkError) {
      io.stderr.write(`tidemark ${name}: ${error.message}\n`);
      return error instanceof UsageError ? 2 : 1;
    }
    if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`tidemark ${name}: ${error.message}\n\n${command.usage}\n`);
      return 2;
    }
    throw error;
  }
}
