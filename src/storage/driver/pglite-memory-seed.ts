import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { currentSeedFolder, readSeedArchive, usableSeed } from './pglite-seed.js';
import { ArchiveReader, archiveInMemory } from './seed-archive.js';

const inflate = promisify(brotliDecompress);

/** What an in-memory database starts from: PGlite's `loadDataDir` and the schema migrated in it. */
export interface MemorySeed {
  dataDir: Blob;
  schema: string;
}

/**
 * Each seed's data directory, once made, by its folder and archive hash: a process that opens
 * many databases in memory (a test suite with an engine per test) inflates and repacks the seed
 * once (about 0.2 s), and keeps one copy of it (about 40 MB) while it runs.
 */
const madeDataDirs = new Map<string, Promise<Blob | null>>();

/**
 * The packaged seed as a data directory PGlite loads into memory (`loadDataDir`), or null when
 * none fits this code and the installed PGlite or it cannot be read. Initdb inside WebAssembly
 * and the migrations cost an in-memory open seconds of CPU; loading the seed costs a fraction.
 * The manifest is checked on every call; the archive is read, checked and repacked once.
 */
export async function memorySeed(folder = currentSeedFolder()): Promise<MemorySeed | null> {
  const manifest = usableSeed(folder);
  if (!manifest) return null;
  const key = `${folder}\0${manifest.archiveSha256}`;
  let made = madeDataDirs.get(key);
  if (!made) {
    made = dataDirOf(readSeedArchive(manifest, folder), manifest.zeroTails);
    madeDataDirs.set(key, made);
  }
  const dataDir = await made;
  // A seed that could not be read is tried again next time.
  if (!dataDir) madeDataDirs.delete(key);
  return dataDir && { dataDir, schema: manifest.schema };
}

/**
 * The archive as a tar PGlite loads: the archive holds the WAL segment only up to its last
 * non-zero byte, and here every file has its full size again. Null for a damaged archive.
 */
async function dataDirOf(archive: Buffer | null, zeroTails: Record<string, number>): Promise<Blob | null> {
  if (!archive) return null;
  try {
    const reader = new ArchiveReader();
    const members = [...reader.push(await inflate(archive)), ...reader.end()];
    return archiveInMemory(members, (file) => zeroTails[file.name] ?? file.data.length);
  } catch {
    return null;
  }
}

/**
 * A new in-memory database, from the seed when one fits, else by initdb. Its WAL lives in
 * memory too, so it is kept small: initdb's segments of 1 MB with at most 16 MB kept, or, from
 * the seed, whose segments are initdb's default 16 MB, the two the server needs at least. The
 * seeded schema stays only for `seedSchema` of the same name; otherwise it is dropped and the
 * open migrates its own schema, as in a database made by initdb.
 */
export async function openInMemory(
  Pglite: typeof PGlite,
  options: PGliteOptions,
  seedSchema: string | undefined,
): Promise<PGlite> {
  const withWal = (min: string, max: string) => [
    ...(options.startParams ?? []),
    '-c',
    `min_wal_size=${min}`,
    '-c',
    `max_wal_size=${max}`,
  ];
  const seed = await memorySeed();
  if (seed) {
    let db: PGlite | null = null;
    try {
      db = await Pglite.create({
        ...options,
        loadDataDir: seed.dataDir,
        startParams: withWal('32MB', '32MB'),
      });
      if (seed.schema !== seedSchema) await db.exec(`drop schema "${seed.schema}" cascade`);
      return db;
    } catch {
      // A seed PGlite would not load: made by initdb instead.
      await db?.close().catch(() => {});
    }
  }
  return Pglite.create({
    ...options,
    initDbStartParams: ['--wal-segsize=1'],
    startParams: withWal('4MB', '16MB'),
  });
}
