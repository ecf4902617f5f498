import { randomBytes } from 'node:crypto';
import { mkdirSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { codeOf, DatabaseFolderError, DatabaseLockedError } from '../../errors.js';
import { holdOwnerFile } from './folder-lock-file.js';
import { holdSocketFile } from './folder-lock-path-socket.js';
import { holdName, releaseName } from './folder-lock-socket.js';
import {
  OWNER_FILE,
  ownerIsRunning,
  ownerText,
  parseOwner,
  processStart,
  readOwnerText,
} from './folder-owner.js';

/**
 * How a folder is held: `name`, by listening sockets that stop listening when the process dies
 * (Linux: a socket file in the folder and an abstract socket; Windows: a named pipe); `file`, the
 * owner file itself (other systems).
 */
export type FolderLockStrategy = 'name' | 'file';

const platformStrategy: FolderLockStrategy = ['linux', 'android', 'win32'].includes(process.platform)
  ? 'name'
  : 'file';
let strategy = platformStrategy;

/** Choose how folders are held; null restores the platform's way. Tests use it to run the file lock here. */
export function setFolderLockStrategy(next: FolderLockStrategy | null): void {
  strategy = next ?? platformStrategy;
}

/** A folder this process holds. */
export interface HeldLock {
  /**
   * The folder's real path. PGlite is given this one: its file layer cannot open a data folder
   * reached through a symlink (it fails with a bare errno).
   */
  path: string;
  /** Let the folder go; the next opener, here or elsewhere, can take it once this resolves. */
  release: () => Promise<void>;
}

interface HeldFolder {
  ownerPath: string;
  ownerText: string;
  /** Removes the folder's socket file, when it is held by one. */
  leave?: () => void;
}

/**
 * The folders this process holds, by device and inode, so that a second path to one folder (a
 * symlink, a bind mount) is the same folder. Kept on `globalThis` so that the ESM and CommonJS
 * copies of Tidemark in one process share it.
 */
const HELD = Symbol.for('tidemark.heldFolders');
const shared = globalThis as { [HELD]?: Map<string, HeldFolder> };
shared[HELD] ??= new Map();
const held = shared[HELD];

let exitHookInstalled = false;

/**
 * One process owns an embedded database folder: two PGlite instances on one folder both open
 * without error and silently lose rows. Refuses with `DatabaseLockedError` when another process
 * holds the folder, or this one does under any path; with `DatabaseFolderError` when the folder
 * cannot be created or written.
 */
export async function lockFolder(dir: string): Promise<HeldLock> {
  const folder = resolve(dir);
  const { real, identity } = prepareFolder(folder);
  if (held.has(identity)) throw new DatabaseLockedError(folder, process.pid);
  const entry = { ownerPath: join(real, OWNER_FILE), ownerText: ownerText() };
  held.set(identity, entry);
  installExitHook();
  let letGo: () => Promise<void>;
  try {
    letGo =
      strategy === 'name'
        ? await holdByName(folder, real, identity, entry)
        : await holdByFile(folder, real, entry);
  } catch (error) {
    held.delete(identity);
    throw error;
  }
  let released = false;
  return {
    path: real,
    release: async () => {
      if (released) return;
      released = true;
      try {
        await letGo();
      } finally {
        // Only now: an open here while the name is still bound is this process's, and says so.
        held.delete(identity);
      }
    },
  };
}

/** Create the folder when missing; its real path, and its identity (device and inode). */
function prepareFolder(folder: string): { real: string; identity: string } {
  try {
    mkdirSync(folder, { recursive: true });
    const real = realpathSync(folder);
    const stat = statSync(real, { bigint: true });
    if (!stat.isDirectory()) throw new DatabaseFolderError(folder, 'ENOTDIR');
    return { real, identity: `${stat.dev}:${stat.ino}` };
  } catch (error) {
    throw folderError(folder, error);
  }
}

/**
 * The socket file in the folder is the lock across network namespaces (containers that share the
 * volume). The abstract name, which Tidemark held alone before, is taken too, so that a process
 * of an earlier version on this machine and this one keep each other out.
 */
async function holdByName(
  folder: string,
  real: string,
  identity: string,
  entry: HeldFolder,
): Promise<() => Promise<void>> {
  let socketFile: Awaited<ReturnType<typeof holdSocketFile>>;
  try {
    socketFile = process.platform === 'win32' ? 'unsupported' : await holdSocketFile(real);
  } catch (error) {
    throw folderError(folder, error);
  }
  if (socketFile === 'held') throw new DatabaseLockedError(folder, runningOwner(entry.ownerPath));
  const file = socketFile === 'unsupported' ? null : socketFile;
  let server: Awaited<ReturnType<typeof holdName>>;
  try {
    server = await holdName(identity);
  } catch (error) {
    await file?.release();
    throw error;
  }
  if (!server) {
    await file?.release();
    throw new DatabaseLockedError(folder, runningOwner(entry.ownerPath));
  }
  entry.leave = file?.leave;
  try {
    // Written aside and renamed, so a refused opener never reads half a record.
    const aside = `${entry.ownerPath}.${process.pid}.${randomBytes(6).toString('hex')}`;
    try {
      writeFileSync(aside, entry.ownerText);
      renameSync(aside, entry.ownerPath);
    } finally {
      rmSync(aside, { force: true });
    }
  } catch (error) {
    await releaseName(server);
    await file?.release();
    throw folderError(folder, error);
  }
  return async () => {
    removeOwnerFile(entry);
    await releaseName(server);
    await file?.release();
  };
}

async function holdByFile(folder: string, real: string, entry: HeldFolder): Promise<() => Promise<void>> {
  let hold: Awaited<ReturnType<typeof holdOwnerFile>>;
  try {
    // This process's pid is this process only if the start time matches too (another worker
    // thread); otherwise it is a previous process that had the same pid, as after a restart in a
    // container.
    hold = await holdOwnerFile(real, entry.ownerText, (text) => {
      const owner = parseOwner(text);
      if (owner === null) return false;
      if (owner.pid !== process.pid) return ownerIsRunning(owner);
      return owner.processStart !== null && owner.processStart === processStart(process.pid);
    });
  } catch (error) {
    throw folderError(folder, error);
  }
  if (!hold.taken) throw new DatabaseLockedError(folder, parseOwner(hold.ownerText)?.pid ?? null);
  return async () => removeOwnerFile(entry);
}

/** The pid the owner file names, when that process is running; the file may predate the holder. */
function runningOwner(ownerPath: string): number | null {
  const owner = parseOwner(readOwnerText(ownerPath));
  return owner && ownerIsRunning(owner) ? owner.pid : null;
}

/** Remove the owner file if it is still this process's; never another owner's. */
function removeOwnerFile(entry: HeldFolder): void {
  if (readOwnerText(entry.ownerPath) !== entry.ownerText) return;
  try {
    unlinkSync(entry.ownerPath);
  } catch {
    // Already gone.
  }
}

/** A process that exits without closing leaves no owner file behind. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const entry of held.values()) {
      removeOwnerFile(entry);
      entry.leave?.();
    }
  });
}

function folderError(folder: string, error: unknown): unknown {
  if (error instanceof DatabaseFolderError) return error;
  const code = codeOf(error);
  return typeof code === 'string' ? new DatabaseFolderError(folder, code, error) : error;
}
