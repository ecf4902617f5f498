import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:net';

/**
 * Hold an embedded folder by listening on a name derived from it: an abstract Unix socket on
 * Linux, a named pipe on Windows. Binding is atomic, so of any number of openers exactly one
 * wins, and the kernel frees the name the moment its process dies, however it dies. There is no
 * file to go stale and no pid to be reused by another process. An abstract name is seen only in
 * its network namespace: on Linux the socket file in the folder (folder-lock-path-socket.ts) is
 * the lock across namespaces, and this name is taken beside it (what earlier versions hold).
 *
 * Resolves with the held server, or null when another process (or this one) holds the name.
 */
export function holdName(identity: string): Promise<Server | null> {
  const hash = createHash('sha256').update(identity).digest('hex');
  const path = process.platform === 'win32' ? `\\\\?\\pipe\\tidemark-${hash}` : `\0tidemark-${hash}`;
  const server = createServer((socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(null);
      else reject(error);
    });
    // exclusive: a cluster worker would otherwise share its primary's handle with its siblings,
    // and every one of them would "hold" the name.
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

/** Give the name up; the next opener can bind it as soon as this resolves. */
export function releaseName(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
