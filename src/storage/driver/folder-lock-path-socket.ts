import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, linkSync, lstatSync, openSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { codeOf } from '../../errors.js';
import { underTakeoverMutex } from './folder-lock-file.js';

/** The socket in a held folder. Its file outlives a crash; only a listener behind it holds the folder. */
export const SOCKET_FILE = 'tidemark.sock';

/**
 * A socket path has 108 bytes with its NUL. libuv cuts a longer one short without a word and binds
 * the socket somewhere else, so a longer path is reached through the folder's descriptor instead.
 */
const SUN_PATH_MAX = 107;

/** What bind() or link() answer on a file system that keeps no sockets or links. */
const UNSUPPORTED = new Set(['EOPNOTSUPP', 'ENOTSUP', 'ENOSYS', 'EPERM', 'EINVAL']);

/** A folder held by the socket file in it. */
export interface SocketFileHold {
  /** Remove the socket file if it is still this hold's; at exit, when nothing async runs. */
  leave(): void;
  /** Remove the socket file and stop listening; the next opener can take the folder at once. */
  release(): Promise<void>;
}

/**
 * Hold `folder` (a real path) by listening on a Unix socket bound to a path inside it. A path
 * socket is a file, seen by every process that sees the folder, whatever its network namespace
 * (an abstract socket is seen only inside one). The listener is bound under a name of its own and
 * then hard-linked to `tidemark.sock`, which fails while that file exists: of any number of
 * openers one wins, and the file never names a socket that does not listen yet. A file left by a
 * process that died answers a connect with ECONNREFUSED; it is replaced under a mutex, after
 * checking again that nobody listens.
 *
 * Resolves with the hold; 'held' when a live process (this one included) listens there;
 * 'unsupported' when the file system takes no sockets or links.
 */
export async function holdSocketFile(folder: string): Promise<SocketFileHold | 'held' | 'unsupported'> {
  const address = new FolderAddress(folder);
  const mineName = `${SOCKET_FILE}.${process.pid}.${randomBytes(6).toString('hex')}`;
  const mine = join(folder, mineName);
  const lock = join(folder, SOCKET_FILE);
  const mineAddress = address.of(mineName);
  const lockAddress = address.of(SOCKET_FILE);
  if (mineAddress === null || lockAddress === null) return 'unsupported';
  let server: Server;
  try {
    server = await listen(mineAddress);
  } catch (error) {
    address.close();
    if (UNSUPPORTED.has(codeText(error))) return 'unsupported';
    throw error;
  }
  let hold: SocketFileHold | null = null;
  try {
    const inode = lstatSync(mine).ino;
    for (;;) {
      if (tryLink(mine, lock)) break;
      const state = await probe(lockAddress);
      if (state === 'live') return 'held';
      if (state === 'gone') continue;
      const taken = await underTakeoverMutex(`${lock}.takeover`, async () => {
        // Taken over, or released and taken, since it was judged: judge again.
        if ((await probe(lockAddress)) !== 'stale') return false;
        rmSync(lock, { force: true });
        return tryLink(mine, lock);
      });
      if (taken) break;
    }
    const leave = () => {
      try {
        if (lstatSync(lock).ino === inode) rmSync(lock, { force: true });
      } catch {
        // Gone already.
      }
    };
    hold = {
      leave,
      release: async () => {
        // Unlinked before the listener closes, so no opener ever finds a file nobody listens on.
        leave();
        await close(server);
        address.close();
      },
    };
    return hold;
  } catch (error) {
    if (UNSUPPORTED.has(codeText(error))) return 'unsupported';
    throw error;
  } finally {
    // The listener stays reachable through `tidemark.sock`; its own name is not needed.
    rmSync(mine, { force: true });
    if (hold === null) {
      await close(server);
      address.close();
    }
  }
}

/** How to reach a file of the folder with connect() and bind(). */
class FolderAddress {
  private fd: number | null = null;

  constructor(private readonly folder: string) {}

  /** The path itself when it fits; else through the folder's descriptor; null without /proc. */
  of(name: string): string | null {
    const direct = join(this.folder, name);
    if (Buffer.byteLength(direct) <= SUN_PATH_MAX) return direct;
    if (!existsSync('/proc/self/fd')) return null;
    // Kept open while the listener lives: libuv removes its bound path when it closes.
    this.fd ??= openSync(this.folder, 'r');
    return `/proc/self/fd/${this.fd}/${name}`;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** link(), false when the target exists. */
function tryLink(from: string, to: string): boolean {
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if (codeText(error) === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Whether a process listens on the socket: 'stale' when the file is there and nobody listens,
 * 'gone' when there is no file. Any other answer (a full backlog, no permission) counts as held.
 */
function probe(address: string): Promise<'live' | 'stale' | 'gone'> {
  return new Promise((resolve) => {
    const socket = connect({ path: address });
    socket.once('connect', () => {
      socket.destroy();
      resolve('live');
    });
    socket.once('error', (error) => {
      socket.destroy();
      const code = codeText(error);
      resolve(code === 'ECONNREFUSED' ? 'stale' : code === 'ENOENT' ? 'gone' : 'live');
    });
  });
}

function listen(path: string): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // exclusive: a cluster worker would otherwise share its primary's handle.
    server.listen({ path, exclusive: true }, () => {
      server.removeAllListeners('error');
      // Only a stray local client could make a listening server fail; the hold stands regardless.
      server.on('error', () => {});
      // Holding the folder must not keep the process alive.
      server.unref();
      resolve(server);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

function codeText(error: unknown): string {
  return String(codeOf(error) ?? '');
}
