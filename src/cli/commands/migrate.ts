import { checkSchemaName, migrateDatabase } from '../../storage/open-storage.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../command.js';
import { commandTarget, DATABASE_HELP, DATABASE_OPTIONS } from '../open-database.js';
import { parseCommandArgs } from '../parse-args.js';

const USAGE = `Usage: tidemark migrate [--database URL|PATH] [--schema NAME]

Creates Tidemark's schema, or brings it up to this version's migrations. Safe to run
from several processes at once (an advisory lock serialises them). Refuses a schema
migrated by a newer Tidemark.

Options:
${DATABASE_HELP}`;

export const migrateCommand: Command = {
  name: 'migrate',
  summary: "create or upgrade Tidemark's schema",
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values } = parseCommandArgs({ args, options: DATABASE_OPTIONS, strict: true });
    const target = commandTarget(values, io, false);
    const schema = checkSchemaName(target.schema ?? 'tidemark');
    // The one command that writes DDL: it runs the migrations on a connection, not on an engine.
    const { before, applied, latest } = await migrateDatabase(target.database, schema);
    io.stdout.write(
      applied.length === 0
        ? `Schema ${schema} is up to date (version ${before}).\n`
        : `Schema ${schema}: applied migration${applied.length > 1 ? 's' : ''} ${applied.join(', ')}; now at version ${latest}.\n`,
    );
    return 0;
  },
};
