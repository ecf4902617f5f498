import { createServer } from 'node:http';
import { type ApiServerOptions, apiServerOptions, type RunningApi } from '../options/api-options.js';
import type { ApiEngine } from './engine-port.js';
import { apiSetup, serveApiRequest } from './handler.js';

/**
 * Start the API on its own HTTP server (`tidemark serve --api`). Binds 127.0.0.1 unless told
 * otherwise; every route needs a token wherever it binds, so any address may be given.
 */
export async function serveApi(tm: ApiEngine, input: ApiServerOptions): Promise<RunningApi> {
  const { port, host, ...options } = apiServerOptions.read(input, 'options');
  const setup = apiSetup(options, 'options');
  const server = createServer(
    (req, res) => void serveApiRequest(tm, setup, req, res, new URL(req.url ?? '/', 'http://api').pathname),
  );
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
    throw new Error(`the API server is not listening on a port (address: ${String(address)})`);
  }
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shown}:${address.port}/`,
    server,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
