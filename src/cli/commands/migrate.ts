import { parseArgs } from 'node:util';
import { migrate, schemaVersion } from '../../storage/migrate.js';
import { latestVersion } from '../../storage/migrations/index.js';
import type { CliIo } from '../cli-io.js';
import type { Command } from '../main.js';
import { DATABASE_HELP, DATABASE_OPTIONS, openForCommand } from '../open-database.js';

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
    const { values } = parseArgs({ args, options: DATABASE_OPTIONS, strict: true });
    const tm = await openForCommand(values, io, { migrate: false, mustExist: false });
    try {
      const driver = tm.internals.storage.driver;
      const before = await schemaVersion(driver, tm.schema);
      const applied = await migrate(driver, tm.schema);
      io.stdout.write(
        applied.length === 0
          ? `Schema ${tm.schema} is up to date (version ${before}).\n`
          : `Schema ${tm.schema}: applied migration${applied.length > 1 ? 's' : ''} ${applied.join(', ')}; now at version ${latestVersion}.\n`,
      );
      return 0;
    } finally {
      await tm.close();
    }
  },
};
