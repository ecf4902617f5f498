import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import type { TransformOptions } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type BrotliOptions, createBrotliDecompress } from 'node:zlib';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type Migration, migrations } from '../migrations/index.js';
import { type ArchiveMember, ArchiveReader } from './seed-archive.js';

/**
 * A new embedded folder starts as a copy of a data folder made at build time (initdb, then
 * Tidemark's migrations), which PGlite then opens as an existing database: initdb inside
 * WebAssembly and the copy of its result through PGlite's file layer took 2 to 6 seconds of a
 * first open; unpacking takes a fraction of one. Anything that does not fit this code and the
 * installed PGlite exactly is not used, and the folder is created as before.
 */
export const SEED_FORMAT = 1;
export const SEED_ARCHIVE = 'data.tar.br';
export const SEED_MANIFEST = 'manifest.json';

const SeedMigrationShape = Type.Object({
  version: Type.Number(),
  name: Type.String(),
  /** A SHA-256 of the migration's SQL. */
  sha256: Type.String(),
});

/** What a seed holds, beside it in `manifest.json`; a manifest of any other shape is not used. */
const SeedManifestShape = Type.Object({
  format: Type.Number(),
  /** The version of `@electric-sql/pglite` whose initdb made it. */
  pglite: Type.String(),
  /** The schema migrated in it: a lowercase identifier, as every schema Tidemark opens. */
  schema: Type.String({ pattern: '^[a-z_][a-z0-9_]{0,39}$' }),
  /** Every migration applied, in order, with a hash of its SQL. */
  migrations: Type.Array(SeedMigrationShape),
  /**
   * Files the archive holds only up to their last non-zero byte, with their full size: the WAL
   * segment is 16 MB of zeros after a few hundred bytes, and inflating those zeros took most of
   * the unpacking time. Unpacked, they are written out in full, as initdb leaves them.
   */
  zeroTails: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  /** The archive's SHA-256: brotli has no checksum of its own, and the manifest goes with one archive. */
  archiveSha256: Type.String(),
});

export type SeedManifest = Static<typeof SeedManifestShape>;
export type SeedMigration = Static<typeof SeedMigrationShape>;

/** `dist/pglite-seed/` of the package, from `src/storage/driver/` and `dist/storage/driver/` alike. */
const PACKAGED = fileURLToPath(new URL('../../../dist/pglite-seed/', import.meta.url));
let seedFolder = PACKAGED;

/** Where seeds are read from; null restores the package's own. Tests use it. */
export function setSeedFolder(folder: string | null): void {
  seedFolder = folder ?? PACKAGED;
}

/** Where seeds are read from now. */
export function currentSeedFolder(): string {
  return seedFolder;
}

/** How a migration is recorded in a manifest. */
export function seedMigration(migration: Migration): SeedMigration {
  return { version: migration.version, name: migration.name, sha256: sha256(migration.sql) };
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

let installedPglite: string | null | undefined;

/** The installed PGlite's version; null when its package cannot be found. */
export function pgliteVersion(): string | null {
  if (installedPglite !== undefined) return installedPglite;
  installedPglite = null;
  try {
    // Its exports do not include package.json: found beside the entry's dist folder.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const root = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown };
    if (typeof version === 'string') installedPglite = version;
  } catch {
    // No seed, then.
  }
  return installedPglite;
}

/**
 * The manifest of the seed in `folder` when a new database for `schema` may start from it:
 * the same format, the installed PGlite's version, the same schema, and each migration it
 * applied the same as this code's (a seed older than this code leaves the later migrations to
 * the open, as on any folder).
 */
export function fittingSeed(schema: string, folder = seedFolder): SeedManifest | null {
  const manifest = usableSeed(folder);
  return manifest?.schema === schema ? manifest : null;
}

/**
 * The manifest of the seed in `folder` when this code and the installed PGlite can start a
 * database from it, for whatever schema it was migrated: what `fittingSeed` checks but the
 * schema's name.
 */
export function usableSeed(folder = seedFolder): SeedManifest | null {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(folder, SEED_MANIFEST), 'utf8'));
  } catch {
    return null;
  }
  if (!Value.Check(SeedManifestShape, manifest)) return null;
  if (manifest.format !== SEED_FORMAT) return null;
  if (manifest.pglite !== pgliteVersion()) return null;
  if (manifest.migrations.length === 0 || manifest.migrations.length > migrations.length) return null;
  const fits = manifest.migrations.every((applied, i) => {
    const ours = seedMigration(migrations[i]);
    return applied.version === ours.version && applied.name === ours.name && applied.sha256 === ours.sha256;
  });
  return fits ? manifest : null;
}

/** The seed's archive when it is the one `manifest` describes (brotli has no checksum of its own). */
export function readSeedArchive(manifest: SeedManifest, folder = seedFolder): Buffer | null {
  let archive: Buffer;
  try {
    archive = readFileSync(join(folder, SEED_ARCHIVE));
  } catch {
    return null;
  }
  return sha256(archive) === manifest.archiveSha256 ? archive : null;
}

/**
 * Make `target`, a folder holding no database yet, a copy of the seed for `schema`. False when
 * there is none that fits, or it cannot be read or written; then nothing of it is left behind.
 * PGlite takes a folder holding `PG_VERSION` for a database: it is written last, so that a copy
 * cut short (a crash, a full disk) leaves a folder that the next open creates afresh.
 */
export async function unpackSeed(target: string, schema: string, folder = seedFolder): Promise<boolean> {
  if (existsSync(join(target, 'PG_VERSION'))) return false;
  const manifest = fittingSeed(schema, folder);
  if (!manifest) return false;
  const archive = readSeedArchive(manifest, folder);
  if (!archive) return false;
  const made: string[] = [];
  const written: string[] = [];
  // Decompressed on the thread pool while the members already out are written here: creating a
  // thousand files costs about as much as the decompression, and the two overlap. The stream
  // runs ahead of the writes instead of waiting for them to drain its buffer.
  const streaming: BrotliOptions & TransformOptions = { chunkSize: 1 << 20, highWaterMark: 64 << 20 };
  const inflate = createBrotliDecompress(streaming);
  try {
    inflate.end(archive);
    const reader = new ArchiveReader();
    let marker = null as Uint8Array | null;
    const unpack = (members: ArchiveMember[]) => {
      for (const member of members) {
        const path = join(target, ...member.name.split('/'));
        if (member.kind === 'folder') {
          if (existsSync(path)) continue;
          mkdirSync(path);
          made.push(path);
        } else if (member.name === 'PG_VERSION') {
          marker = member.data;
        } else {
          writeNew(path, member.data, manifest.zeroTails[member.name] ?? member.data.length, written);
        }
      }
    };
    for await (const chunk of inflate) unpack(reader.push(chunk));
    unpack(reader.end());
    if (marker === null) throw new Error('the seed has no PG_VERSION');
    writeNew(join(target, 'PG_VERSION'), marker, marker.length, written);
    return true;
  } catch {
    inflate.destroy();
    for (const path of written.reverse()) rmSync(path, { force: true });
    for (const path of made.reverse()) {
      try {
        rmdirSync(path);
      } catch {
        // Not empty: something else wrote there.
      }
    }
    return false;
  }
}

const ZEROS = new Uint8Array(1 << 20);

/**
 * Write a file that must not exist yet (never one of another's), noting it once created: `data`,
 * then zeros up to `size`.
 */
function writeNew(path: string, data: Uint8Array, size: number, written: string[]): void {
  const fd = openSync(path, 'wx');
  written.push(path);
  try {
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset);
    while (offset < size) offset += writeSync(fd, ZEROS, 0, Math.min(ZEROS.length, size - offset));
  } finally {
    closeSync(fd);
  }
}
