import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, renameSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { codeOf } from '../../errors.js';
import { OWNER_FILE, readOwnerText } from './folder-owner.js';

/** A takeover holds its mutex for a few system calls; one this old died inside it. */
const TAKEOVER_STALE_MS = 30_000;

export type FileHold = { taken: true } | { taken: false; ownerText: string };

/**
 * Hold an embedded folder with its owner file, where the system gives Node no lock that dies
 * with its process. The file is created whole with link(), which fails while any owner file
 * exists. One whose owner no longer runs (`isRunning` says) is replaced with rename() under a
 * takeover mutex (mkdir), and only if it is still the file that was judged: two openers that
 * both found it stale cannot both take it.
 */
export async function holdOwnerFile(
  folder: string,
  text: string,
  isRunning: (ownerText: string) => boolean,
): Promise<FileHold> {
  const lock = join(folder, OWNER_FILE);
  const mine = join(folder, `${OWNER_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`);
  writeFileSync(mine, text, { flag: 'wx' });
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        return { taken: true };
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      const seen = readOwnerText(lock);
      // Released between the two calls: try again.
      if (seen === null) continue;
      if (isRunning(seen)) return { taken: false, ownerText: seen };
      if (await replaceStale(lock, mine, seen)) return { taken: true };
    }
  } finally {
    rmSync(mine, { force: true });
  }
}

async function replaceStale(lock: string, mine: string, seen: string): Promise<boolean> {
  return underTakeoverMutex(`${lock}.takeover`, () => {
    // Someone took it over, or it was released, since it was judged: judge again.
    if (readOwnerText(lock) !== seen) return false;
    renameSync(mine, lock);
    return true;
  });
}

/**
 * Run `fn` alone among the processes that take over a stale lock of this folder: `mutex` is a
 * folder made with mkdir(), which fails while it exists, and removed afterwards. One left by an
 * opener that died inside it is cleared once it is old.
 */
export async function underTakeoverMutex<T>(mutex: string, fn: () => T | Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(mutex);
      break;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw error;
      clearIfStale(mutex);
      await sleep(5);
    }
  }
  try {
    return await fn();
  } finally {
    try {
      rmdirSync(mutex);
    } catch {
      // Cleared as stale by another opener after a long stall here; nothing left to remove.
    }
  }
}

function clearIfStale(mutex: string): void {
  try {
    if (Date.now() - statSync(mutex).mtimeMs > TAKEOVER_STALE_MS) rmdirSync(mutex);
  } catch {
    // Gone already.
  }
}
