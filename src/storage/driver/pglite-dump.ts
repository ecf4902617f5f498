import type { PGlite } from '@electric-sql/pglite';
import { hasProperties, propertyOf } from '../../model/guards.js';

/** The folder lock's files (`tidemark.lock`, `tidemark.sock` and their aside names). */
const LOCK_FILE = /^tidemark\./;

type DirectoryLister = { readdir(path: string): string[] };

/** Emscripten's file system object, as far as it is used here. */
function isDirectoryLister(fs: unknown): fs is DirectoryLister {
  return hasProperties(fs) && typeof fs.readdir === 'function';
}

const patched = new WeakSet<object>();
const wrapped = new WeakSet<PGlite>();

/**
 * `dumpDataDir()` (and `clone()`, which uses it) walks the data folder through PGlite's file
 * layer, which fails on a socket file (EINVAL): the folder lock's. The lock's files are not the
 * database's, and a copy restored elsewhere must not carry them, so the instance's file layer
 * leaves them out of its listings from its first dump on.
 */
export function leaveLockFilesOutOfDumps(db: PGlite): void {
  if (wrapped.has(db)) return;
  wrapped.add(db);
  const dump = db.dumpDataDir.bind(db);
  db.dumpDataDir = async (...args: Parameters<PGlite['dumpDataDir']>) => {
    await db.waitReady;
    const fs = propertyOf(db.Module, 'FS');
    if (isDirectoryLister(fs) && !patched.has(fs)) {
      patched.add(fs);
      const readdir = fs.readdir.bind(fs);
      fs.readdir = (path: string) => readdir(path).filter((name) => !LOCK_FILE.test(name));
    }
    return dump(...args);
  };
}
