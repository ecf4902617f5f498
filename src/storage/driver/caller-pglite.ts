import type { PGlite } from '@electric-sql/pglite';
import { propertyOf } from '../../model/guards.js';
import { type HeldLock, lockFolder } from './folder-lock.js';

/**
 * The folder a PGlite instance keeps its data in; null for one in memory (or in a browser store).
 * From its NodeFS when it has one (`fs.rootDir`, the resolved folder), else from its `dataDir`
 * as PGlite reads it: `file://` or a bare path is a folder, `memory://` or none is memory.
 */
export function pgliteFolder(db: PGlite): string | null {
  const root = propertyOf(db.fs, 'rootDir');
  if (typeof root === 'string' && root !== '') return root;
  const dir = propertyOf(db, 'dataDir');
  if (typeof dir !== 'string' || dir === '') return null;
  if (dir.startsWith('file://')) return dir.slice('file://'.length) || null;
  // memory://, idb://, opfs-ahp://, memfs2opfs://: nothing on this machine's disk.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dir)) return null;
  return dir;
}

/** The folder locks of caller-supplied instances, one per instance however many engines use it. */
const held = new WeakMap<PGlite, Promise<HeldLock>>();

/**
 * Hold the folder of a caller's PGlite instance as `Tidemark.open` holds a path: refused with
 * `DatabaseLockedError` when another process (or another instance in this one) has it. The
 * instance may be used after Tidemark closes, so the folder stays held until the instance itself
 * is closed (its `close()` releases it) or the process ends. Resolves with the folder's real path.
 */
export async function holdCallerFolder(db: PGlite, folder: string): Promise<string> {
  let lock = held.get(db);
  if (lock === undefined) {
    lock = lockFolder(folder);
    held.set(db, lock);
    lock.then(
      (taken) => releaseOnClose(db, taken),
      () => held.delete(db),
    );
  }
  return (await lock).path;
}

function releaseOnClose(db: PGlite, lock: HeldLock): void {
  const close = db.close.bind(db);
  db.close = async () => {
    try {
      await close();
    } finally {
      held.delete(db);
      await lock.release();
    }
  };
}
