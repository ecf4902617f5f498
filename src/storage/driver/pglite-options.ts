import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

/** The OID of int8; ids come back as strings on both drivers. */
const INT8_OID = 20;

/** PGlite's parsers that return int8 as its text, as node-postgres does. */
export const INT8_AS_TEXT = { [INT8_OID]: (value: string) => value };

/**
 * The options a PGlite the driver opens starts with: int8 as text, PostgreSQL's log to
 * `onStderr`, and with `strictDurability` the write-ahead log synced on every commit
 * (`wal_sync_method=open_datasync`) instead of PGlite's default of no fsync (`-F`).
 */
export function startOptions(
  pglite: typeof PGlite,
  strictDurability: boolean,
  onStderr: NonNullable<PGliteOptions['onStderr']>,
): PGliteOptions {
  const startParams = [...pglite.defaultStartParams];
  if (strictDurability) {
    const index = startParams.indexOf('-F');
    if (index >= 0) startParams.splice(index, 1);
    startParams.push('-c', 'wal_sync_method=open_datasync');
  }
  return { parsers: INT8_AS_TEXT, onStderr, startParams };
}

/** How the driver opens or wraps an instance. */
export interface PgliteDriverOptions {
  /**
   * Sync the write-ahead log on every commit (`wal_sync_method=open_datasync`). Survives power
   * loss of committed work at about half the commit rate. Off by default: a process crash
   * loses no acknowledged commit either way.
   */
  strictDurability?: boolean;
  /**
   * The schema the opener migrates: a new folder then starts as a copy of the packaged seed
   * migrated for it, when one fits (pglite-seed.ts), instead of running initdb. A new database in
   * memory starts from the seed too, keeping its schema only when it is this one
   * (pglite-memory-seed.ts).
   */
  seedSchema?: string;
  /**
   * False: every statement runs unnamed, as PGlite's `query` runs it, parsed and planned on each
   * run. By default a named statement is prepared once on the instance (pglite-prepared.ts).
   */
  preparedStatements?: boolean;
}
