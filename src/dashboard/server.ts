import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InsecureDashboardError } from '../errors.js';
import type { Tidemark } from '../tidemark.js';
import { isLoopbackHost } from './auth.js';
import { createDashboardHandler } from './handler.js';
import { type DashboardOptions, resolveServerOptions } from './options.js';

/** A running dashboard server. */
export interface RunningDashboard {
  /** Where it listens, e.g. `http://127.0.0.1:4321/`. */
  url: string;
  server: Server;
  /** Stop listening and close open connections (idempotent). Does not close the Tidemark instance. */
  close(): Promise<void>;
}

/**
 * Start the dashboard on its own HTTP server. Binds 127.0.0.1 unless told otherwise, and
 * refuses any other address without a token (InsecureDashboardError), before listening.
 */
export async function startDashboard(tm: Tidemark, input: DashboardOptions = {}): Promise<RunningDashboard> {
  const options = resolveServerOptions(input);
  if (!isLoopbackHost(options.host) && options.token === undefined)
    throw new InsecureDashboardError(options.host);
  const handler = createDashboardHandler(tm, {
    token: options.token,
    readOnly: options.readOnly,
    basePath: options.basePath,
  });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${address.port}${options.basePath}/`,
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
