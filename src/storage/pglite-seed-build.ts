import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { PgliteDriver } from './driver/pglite.js';
import {
  fittingSeed,
  pgliteVersion,
  SEED_ARCHIVE,
  SEED_FORMAT,
  SEED_MANIFEST,
  type SeedManifest,
  seedMigration,
  sha256,
  unpackSeed,
} from './driver/pglite-seed.js';
import { type ArchiveMember, packArchive } from './driver/seed-archive.js';
import { migrate, schemaVersion } from './migrate.js';
import { latestVersion, migrations } from './migrations/index.js';

/** A WAL segment's file name: timeline, log and segment, 8 hex digits each. */
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/** The folder lock's files, which are not the database's. */
const LOCK_FILE = /^tidemark\./;

export interface SeedBuildOptions {
  /** The last migration applied (default: all); tests make a seed of an older release with it. */
  upTo?: number;
  /** Fills the empty folder the seed is made in before it is opened; tests skip initdb with it. */
  prepare?: (folder: string) => Promise<void>;
}

/**
 * Write the seed new embedded folders start from (see driver/pglite-seed.ts) into `outDir`: a
 * folder created by PGlite's own initdb as any other, migrated for `schema`, checkpointed and
 * closed, then packed. Unpacked and opened once before it is written, so that a seed that would
 * not open never ships. The manifest is written last: a build cut short leaves no seed that
 * looks whole.
 */
export async function buildPgliteSeed(
  outDir: string,
  schema: string,
  { upTo = latestVersion, prepare }: SeedBuildOptions = {},
): Promise<SeedManifest> {
  const pglite = pgliteVersion();
  if (pglite === null) throw new Error('the installed @electric-sql/pglite has no readable version');
  const work = mkdtempSync(join(tmpdir(), 'tidemark-seed-'));
  try {
    const made = join(work, 'made');
    if (prepare) {
      mkdirSync(made);
      await prepare(made);
    }
    const segment = await createMigrated(made, schema, upTo);
    const staged = join(work, 'staged');
    mkdirSync(staged);
    const entries = folderEntries(made, segment);
    const zeroTails = cutZeroTails(entries);
    const laidOut = join(work, 'archive');
    mkdirSync(laidOut);
    const tar = packArchive(entries, laidOut);
    // Quality 5 comes within 2% of 9's size in a fifth of the time; decompressing is as fast.
    const archive = brotliCompressSync(tar, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: tar.length },
    });
    const manifest: SeedManifest = {
      format: SEED_FORMAT,
      pglite,
      schema,
      migrations: migrations.filter((m) => m.version <= upTo).map(seedMigration),
      zeroTails,
      archiveSha256: sha256(archive),
    };
    writeFileSync(join(staged, SEED_ARCHIVE), archive);
    writeFileSync(join(staged, SEED_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    await checkOpens(join(work, 'check'), staged, schema, upTo);
    mkdirSync(outDir, { recursive: true });
    rmSync(join(outDir, SEED_MANIFEST), { force: true });
    for (const file of [SEED_ARCHIVE, SEED_MANIFEST]) {
      const aside = join(outDir, `${file}.${process.pid}.partial`);
      writeFileSync(aside, readFileSync(join(staged, file)));
      renameSync(aside, join(outDir, file));
    }
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Whether `outDir` holds a seed for `schema` that this code and the installed PGlite would use,
 * with every migration applied: then a build need not make it again.
 */
export function seedIsCurrent(outDir: string, schema: string): boolean {
  return fittingSeed(schema, outDir)?.migrations.length === latestVersion;
}

/**
 * Initdb and the migrations, then a switch to a new WAL segment and a checkpoint: the WAL they
 * wrote (several MB) is then not needed, and the seed holds only the segment returned.
 */
async function createMigrated(folder: string, schema: string, upTo: number): Promise<string> {
  const driver = await PgliteDriver.open(folder);
  try {
    await migrate(driver, schema, String, upTo);
    await driver.query('select pg_switch_wal()');
    await driver.query('checkpoint');
    const { rows } = await driver.query<{ name: string }>(
      'select pg_walfile_name(pg_current_wal_insert_lsn()) as name',
    );
    return rows[0].name;
  } finally {
    await driver.close();
  }
}

/** The folder's members, folders before what they hold, sorted; other WAL segments left out. */
function folderEntries(root: string, segment: string, prefix = ''): ArchiveMember[] {
  const entries: ArchiveMember[] = [];
  for (const item of readdirSync(join(root, prefix), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const name = prefix ? `${prefix}/${item.name}` : item.name;
    if (prefix === '' && LOCK_FILE.test(item.name)) continue;
    if (prefix === 'pg_wal' && WAL_SEGMENT.test(item.name) && item.name !== segment) continue;
    if (item.isDirectory()) {
      entries.push({ name, kind: 'folder' });
      entries.push(...folderEntries(root, segment, name));
    } else if (item.isFile()) {
      entries.push({ name, kind: 'file', data: readFileSync(join(root, name)) });
    } else {
      throw new Error(`the data folder holds ${name}, neither a folder nor a plain file`);
    }
  }
  return entries;
}

/** Runs of trailing zeros this long or longer are cut from the archive (see `zeroTails`). */
const ZERO_TAIL = 64 * 1024;

/** Cut the long runs of trailing zeros from the files; their full sizes, by name. */
function cutZeroTails(entries: ArchiveMember[]): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const [i, entry] of entries.entries()) {
    if (entry.kind !== 'file') continue;
    let end = entry.data.length;
    while (end > 0 && entry.data[end - 1] === 0) end--;
    if (entry.data.length - end < ZERO_TAIL) continue;
    sizes[entry.name] = entry.data.length;
    entries[i] = { ...entry, data: entry.data.subarray(0, end) };
  }
  return sizes;
}

/** Unpack the staged seed as an open would, open the copy, and read its schema's version. */
async function checkOpens(folder: string, staged: string, schema: string, upTo: number): Promise<void> {
  mkdirSync(folder);
  if (!(await unpackSeed(folder, schema, staged))) throw new Error('the seed just made does not unpack');
  const driver = await PgliteDriver.open(folder);
  try {
    const version = await schemaVersion(driver, schema);
    if (version !== upTo) throw new Error(`the seed just made opens at version ${version}, not ${upTo}`);
  } finally {
    await driver.close();
  }
}
