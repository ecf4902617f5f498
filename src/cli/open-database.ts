import { existsSync } from 'node:fs';
import { isOneOf } from '../model/guards.js';
import { isId } from '../model/job-rules.js';
import type { OpenOptions } from '../options/open-options.js';
import { Tidemark } from '../tidemark.js';
import { type CliIo, UsageError } from './cli-io.js';
import { databaseFrom } from './database-option.js';
import { ioLogger } from './io-logger.js';

/** The parseArgs options every command that opens a database accepts. */
export const DATABASE_OPTIONS = {
  database: { type: 'string' },
  schema: { type: 'string' },
} as const;

export const DATABASE_HELP = `  --database URL|PATH   postgres://… URL or embedded folder (default ./.tidemark;
                        env TIDEMARK_DATABASE_URL)
  --schema NAME         SQL schema of Tidemark's tables (default tidemark; env TIDEMARK_SCHEMA)`;

/**
 * Open Tidemark for a command. Commands never create or migrate a schema (only `tidemark
 * migrate` does), so a mistyped --schema is SchemaNotFoundError, not a new empty schema; and
 * `mustExist` refuses an embedded folder that is not there, so a mistyped path is an error
 * rather than a new empty database.
 */
export async function openForCommand(
  values: { database?: string; schema?: string },
  io: CliIo,
  options: OpenOptions = {},
): Promise<Tidemark> {
  const { database, schema } = commandTarget(values, io, true);
  return Tidemark.open({
    logger: ioLogger(io, 'warn'),
    migrate: false,
    ...options,
    database,
    ...(schema !== undefined ? { schema } : {}),
  });
}

/** Open Tidemark for a command (see openForCommand), run `work` on it, and close it whatever happens. */
export async function withCommandEngine<T>(
  values: { database?: string; schema?: string },
  io: CliIo,
  work: (tm: Tidemark) => Promise<T>,
): Promise<T> {
  const tm = await openForCommand(values, io);
  try {
    return await work(tm);
  } finally {
    await tm.close();
  }
}

/**
 * `ACTION NAME` positionals (`queue pause NAME`, `schedule trigger NAME`): the action, one of
 * `actions`, and the name; a UsageError with the usage otherwise, before anything opens.
 */
export function actionAndName<A extends string>(
  positionals: string[],
  actions: readonly A[],
  what: string,
  usage: string,
): [A, string] {
  const [action, name, ...rest] = positionals;
  if (!isOneOf(actions, action) || name === undefined || rest.length > 0) {
    throw new UsageError(`expected ${actions.join(', ')} and one ${what}\n\n${usage}`);
  }
  return [action, name];
}

/** The database and schema a command names (flags, then environment, then defaults). */
export function commandTarget(
  values: { database?: string; schema?: string },
  io: CliIo,
  mustExist: boolean,
): { database: string; schema: string | undefined } {
  const database = databaseFrom(values.database, io);
  const schema = values.schema ?? io.env.TIDEMARK_SCHEMA;
  const embedded = !/^postgres(ql)?:\/\//.test(database) && database !== 'memory://';
  if (mustExist && embedded && !existsSync(database)) {
    throw new UsageError(
      `no embedded database at '${database}': pass --database, or run 'tidemark migrate' first`,
    );
  }
  return { database, schema };
}

/** A job id argument, checked before anything opens. */
export function jobIdArgument(positionals: string[], usage: string): string {
  if (positionals.length !== 1) throw new UsageError(`expected one job id\n\n${usage}`);
  const [id] = positionals;
  if (!isId(id)) {
    throw new UsageError(`'${id}' is not a job id (a positive whole number)`);
  }
  return id;
}
