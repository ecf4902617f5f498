import { createHash } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Boot an in-memory PGlite for tests. initdb takes 2-3 s per instance (more on a busy
 * machine) while loading a data directory dumped once takes about half a second, so the
 * dump of a fresh instance is kept in the temp folder, keyed by PGlite's version and the
 * start options, and later test files load it.
 */
export async function bootTestPglite(): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  const options = {
    initDbStartParams: ['--wal-segsize=1'],
    startParams: [...PGlite.defaultStartParams, '-c', 'min_wal_size=4MB', '-c', 'max_wal_size=32MB'],
  };
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
  const db = await PGlite.create(options);
  try {
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

function cachePath(options: unknown): string {
  // The package exports no package.json: find it beside the resolved entry's dist folder.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const root = entry.slice(0, entry.lastIndexOf(`${sep}dist${sep}`));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const key = createHash('sha256').update(JSON.stringify({ version, options })).digest('hex').slice(0, 16);
  return join(tmpdir(), `tidemark-test-pglite-${key}.tar`);
}
