import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { unpackSeed } from '../../src/storage/driver/pglite-seed.js';

/**
 * Boot an in-memory PGlite for tests. initdb takes 2-3 s per instance (more on a busy
 * machine) while loading a data directory dumped once takes about half a second, so the
 * dump of a fresh instance is kept in the temp folder, keyed by PGlite's version and the
 * start options, and later test files load it.
 */
export async function bootTestPglite(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const options = testOptions(PGlite.defaultStartParams);
  const db = await bootFromCache(options);
  if (db) return db;
  return bootAndCache(options);
}

/**
 * Make `folder` an embedded database without PGlite: the packaged seed unpacked there, as the
 * first `Tidemark.open` of a new folder does (a fraction of a second of file writes), its
 * default schema migrated. Another schema is migrated by its open as on a new folder. Without a
 * seed that fits this code, the folder is made as `seedBareFolder` makes it.
 */
export async function seedEmbeddedFolder(folder: string): Promise<void> {
  mkdirSync(folder, { recursive: true });
  if (!(await unpackSeed(folder, 'tidemark'))) await seedBareFolder(folder);
}

/**
 * Make `folder` an embedded database without initdb and without Tidemark's schema: the cached
 * dump of a fresh instance is loaded into it (under a second, against several for initdb).
 * Opening the folder migrates as on a new one.
 */
export async function seedBareFolder(folder: string): Promise<void> {
  const { PGlite } = await import('@electric-sql/pglite');
  const options = testOptions(PGlite.defaultStartParams);
  let saved: Buffer;
  try {
    saved = readFileSync(cachePath(options));
  } catch {
    await (await bootAndCache(options)).close();
    saved = readFileSync(cachePath(options));
  }
  const db = await PGlite.create({ dataDir: folder, loadDataDir: new Blob([saved]) });
  await db.close();
}

/**
 * Small WAL segments and bounds, and 16 MB of shared buffers rather than PGlite's 128 MB:
 * a test's data fits many times over, and setting up the larger pool cost every boot about
 * 0.4 s of CPU (1.7 against 1.3 s for a boot from the cached dump).
 */
function testOptions(defaultStartParams: string[]) {
  return {
    initDbStartParams: ['--wal-segsize=1'],
    startParams: [
      ...defaultStartParams,
      ...['-c', 'min_wal_size=4MB', '-c', 'max_wal_size=32MB', '-c', 'shared_buffers=16MB'],
    ],
  };
}

type BootOptions = ReturnType<typeof testOptions>;

async function bootFromCache(options: BootOptions): Promise<PGlite | null> {
  const { PGlite } = await import('@electric-sql/pglite');
  const cache = cachePath(options);
  let saved: Buffer | null = null;
  try {
    saved = readFileSync(cache);
  } catch {
    // Not cached yet.
  }
  if (saved) {
    try {
      return await PGlite.create({ ...options, loadDataDir: new Blob([saved]) });
    } catch {
      // An unreadable dump (an interrupted write, another version): boot fresh and replace it.
      rmSync(cache, { force: true });
    }
  }
  return null;
}

async function bootAndCache(options: BootOptions): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const cache = cachePath(options);
  const db = await PGlite.create(options);
  try {
    await dropTemplateDatabases(db);
    const dump = await db.dumpDataDir('none');
    // Write aside then rename, so test files booting in parallel never read half a dump.
    const partial = `${cache}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, cache);
  } catch {
    // Caching is only an optimisation.
  }
  return db;
}

/**
 * PGlite serves one database, `postgres`; initdb also makes template0 and template1, which
 * nothing here connects to. Without them the dump is half the size (16 MB, not 31), and every
 * test file loads it.
 */
async function dropTemplateDatabases(db: PGlite): Promise<void> {
  for (const name of ['template0', 'template1']) {
    await db.query(`alter database ${name} with is_template false`);
    await db.query(`drop database ${name}`);
  }
  await db.query('checkpoint');
}

function cachePath(options: unknown): string {
  // The package exports no package.json: find it beside the resolved entry's dist folder.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const root = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256')
    .update(JSON.stringify({ version, options, templates: false }))
    .digest('hex')
    .slice(0, 16);
  return join(tmpdir(), `tidemark-test-pglite-${key}.tar`);
}
