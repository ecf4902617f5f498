import { codeOf, TidemarkError } from '../errors.js';
import { type CliIo, processIo, UsageError } from './cli-io.js';
import type { Command } from './command.js';
import { addCommand } from './commands/add.js';
import { auditCommand } from './commands/audit.js';
import { dashboardCommand } from './commands/dashboard.js';
import { demoCommand } from './commands/demo.js';
import { jobCommand } from './commands/job.js';
import { cancelCommand, retryCommand, runNowCommand } from './commands/job-action.js';
import { keysCommand } from './commands/keys.js';
import { limitersCommand } from './commands/limiters.js';
import { migrateCommand } from './commands/migrate.js';
import { purgeCommand } from './commands/purge.js';
import { queueCommand } from './commands/queue.js';
import { retentionCommand } from './commands/retention.js';
import { scheduleCommand } from './commands/schedule-controls.js';
import { schedulesCommand, unscheduleCommand } from './commands/schedules.js';
import { serveCommand } from './commands/serve.js';
import { signalCommand } from './commands/signal.js';
import { statsCommand } from './commands/stats.js';
import { sweepCommand } from './commands/sweep.js';
import { workersCommand } from './commands/workers.js';
import { databaseFrom } from './database-option.js';
import { describeConnectionFailure } from './failure.js';
import { packageVersion } from './version.js';

export const commands: Command[] = [
  demoCommand,
  dashboardCommand,
  serveCommand,
  migrateCommand,
  statsCommand,
  workersCommand,
  jobCommand,
  addCommand,
  signalCommand,
  queueCommand,
  keysCommand,
  limitersCommand,
  purgeCommand,
  sweepCommand,
  retentionCommand,
  retryCommand,
  cancelCommand,
  runNowCommand,
  schedulesCommand,
  scheduleCommand,
  unscheduleCommand,
  auditCommand,
];

const HELP = () => `tidemark — durable jobs and workflows on PostgreSQL or embedded PGlite

Usage: tidemark <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n')}

Options common to commands that open a database:
  --database URL|PATH   postgres://… URL or embedded folder (default ./.tidemark;
                        env TIDEMARK_DATABASE_URL)
  --schema NAME         SQL schema of Tidemark's tables (default tidemark; env TIDEMARK_SCHEMA)
Run 'tidemark help <command>' or 'tidemark <command> --help' for a command's options,
'tidemark --version' for the version.
`;

/** Run the CLI with `argv` (without node and script); returns the exit code. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v' || name === '-V' || name === 'version') {
    io.stdout.write(`tidemark ${packageVersion()}\n`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    io.stdout.write(HELP());
    return name ? 0 : 2;
  }
  const wanted = name === 'help' ? rest[0] : name;
  const command = commands.find((c) => c.name === wanted);
  if (!command) {
    io.stderr.write(`tidemark: unknown command '${wanted}'\n\n${HELP()}`);
    return 2;
  }
  if (name === 'help' || rest.includes('--help') || rest.includes('-h')) {
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
    const code = codeOf(error);
    if (error instanceof TypeError && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`tidemark ${name}: ${error.message}\n\n${command.usage}\n`);
      return 2;
    }
    const failure = describeConnectionFailure(error, databaseFrom(flagValue(rest, '--database'), io));
    if (failure) {
      io.stderr.write(`tidemark ${name}: ${failure}\n`);
      return 1;
    }
    throw error;
  }
}

/** `--flag VALUE` or `--flag=VALUE` from raw arguments (for messages, after parsing failed). */
function flagValue(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  if (index >= 0) return args[index + 1];
  return args.find((arg) => arg.startsWith(`${flag}=`))?.slice(flag.length + 1);
}
