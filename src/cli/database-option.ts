import type { CliIo } from './cli-io.js';

/** --database, else TIDEMARK_DATABASE_URL, else the embedded default folder. */
export function databaseFrom(flag: string | undefined, io: CliIo): string {
  return flag ?? io.env.TIDEMARK_DATABASE_URL ?? './.tidemark';
}
