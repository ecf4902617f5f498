import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseLockedError } from '../../errors.js';

const heldHere = new Set<string>();

/**
 * One process owns an embedded database folder: two PGlite instances on one folder both
 * open without error and silently lose rows. The lock file holds the owner's pid; a lock
 * left by a dead process is taken over.
 */
export function lockFolder(dir: string): () => void {
  const folder = resolve(dir);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'tidemark.lock');
  if (heldHere.has(path)) throw new DatabaseLockedError(folder, process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(path);
      const release = () => {
        if (!heldHere.delete(path)) return;
        try {
          unlinkSync(path);
        } catch {
          // Already gone: nothing to release.
        }
        process.off('exit', release);
      };
      process.on('exit', release);
      return release;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(path);
      if (owner !== null && owner !== process.pid && isAlive(owner))
        throw new DatabaseLockedError(folder, owner);
      try {
        unlinkSync(path);
      } catch {
        // Another opener removed the stale lock first; the next attempt decides.
      }
    }
  }
  throw new DatabaseLockedError(folder, readOwner(path) ?? -1);
}

function readOwner(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isFinite(pid) ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
