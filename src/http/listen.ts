import type { Server } from 'node:http';

/** A server listening on a port: its origin (`http://host:port`) and a close that ends every connection. */
export interface Listening {
  origin: string;
  close(): Promise<void>;
}

/**
 * Listen on `port` and `host`, resolved once the socket is bound (rejected with the bind's
 * error). `what` names the server in the error for a server bound to a pipe, not a port.
 * `close()` stops accepting, ends open connections (a long poll or an event stream would
 * otherwise hold it open) and resolves once closed; called again, it returns the same promise.
 */
export async function listenOn(server: Server, port: number, host: string, what: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  // A server listening on a port (not a pipe) has an AddressInfo.
  if (address === null || typeof address === 'string') {
    throw new Error(`the ${what} server is not listening on a port (address: ${String(address)})`);
  }
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    origin: `http://${shown}:${address.port}`,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
