import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { Header } from 'tar';
import { readSeedArchive, usableSeed } from './pglite-seed.js';
import { ArchiveReader } from './seed-archive.js';

const inflate = promisify(brotliDecompress);

/** A tar block: headers and the padding after each member's data come in whole blocks of it. */
const BLOCK = 512;

/** What an in-memory database starts from: PGlite's `loadDataDir` and the schema migrated in it. */
export interface MemorySeed {
  dataDir: Blob;
  schema: string;
}

/**
 * The packaged seed as a data directory PGlite loads into memory (`loadDataDir`), or null when
 * none fits this code and the installed PGlite or it cannot be read. Initdb inside WebAssembly
 * and the migrations cost an in-memory open seconds of CPU; loading the seed costs a fraction.
 * The archive holds the WAL segment only up to its last non-zero byte: here it is a tar again,
 * each file at its full size, as PGlite's loader expects.
 */
export async function memorySeed(): Promise<MemorySeed | null> {
  const manifest = usableSeed();
  const archive = manifest && readSeedArchive(manifest);
  if (!manifest || !archive) return null;
  try {
    const reader = new ArchiveReader();
    const members = [...reader.push(await inflate(archive)), ...reader.end()];
    const parts: Uint8Array[] = [];
    for (const member of members) {
      const folder = member.kind === 'folder';
      const size = folder ? 0 : (manifest.zeroTails[member.name] ?? member.data.length);
      const header = Buffer.alloc(BLOCK);
      const needsPax = new Header({
        path: folder ? `${member.name}/` : member.name,
        type: folder ? 'Directory' : 'File',
        mode: folder ? 0o700 : 0o600,
        size,
        mtime: new Date(0),
      }).encode(header, 0);
      // A name too long for a plain header; a data folder holds none.
      if (needsPax) return null;
      parts.push(header);
      if (folder) continue;
      parts.push(member.data);
      // Zeros up to the full size, then up to the block's end.
      parts.push(new Uint8Array(Math.ceil(size / BLOCK) * BLOCK - member.data.length));
    }
    parts.push(new Uint8Array(2 * BLOCK));
    return { dataDir: new Blob(parts), schema: manifest.schema };
  } catch {
    // A damaged archive: the database is made by initdb, as without a seed.
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
  options: PGliteOptions & { startParams: string[] },
  seedSchema: string | undefined,
): Promise<PGlite> {
  const seed = await memorySeed();
  if (seed) {
    let db: PGlite | null = null;
    try {
      db = await Pglite.create({
        ...options,
        loadDataDir: seed.dataDir,
        startParams: [...options.startParams, '-c', 'min_wal_size=32MB', '-c', 'max_wal_size=32MB'],
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
    startParams: [...options.startParams, '-c', 'min_wal_size=4MB', '-c', 'max_wal_size=16MB'],
  });
}
