import { createServer } from 'node:http';
import { InsecureDashboardError } from '../errors.js';
import { listenOn } from '../http/listen.js';
import { isLoopbackHost } from '../http/loopback.js';
import type { DashboardOptions, RunningDashboard } from '../options/dashboard-options.js';
import type { DashboardEngine } from './engine-port.js';
import { createDashboardHandler } from './handler.js';
import { resolveServerOptions } from './options.js';

/**
 * `tm.dashboard()`: start a server and keep it in `open` (the engine's set, which the engine
 * closes on close) until its own `close()` takes it out.
 */
export async function serveDashboard(
  tm: DashboardEngine,
  options: DashboardOptions,
  open: Set<RunningDashboard>,
): Promise<RunningDashboard> {
  const running = await startDashboard(tm, options);
  open.add(running);
  const close = running.close;
  return {
    ...running,
    close: async () => {
      open.delete(running);
      await close();
    },
  };
}

/**
 * Start the dashboard on its own HTTP server. Binds 127.0.0.1 unless told otherwise, and
 * refuses any other address without a token (InsecureDashboardError), before listening.
 */
async function startDashboard(tm: DashboardEngine, input: DashboardOptions = {}): Promise<RunningDashboard> {
  const options = resolveServerOptions(input);
  const noToken = options.token === undefined && Object.keys(options.tokens).length === 0;
  if (!isLoopbackHost(options.host) && noToken) throw new InsecureDashboardError(options.host);
  const handler = createDashboardHandler(tm, {
    token: options.token,
    ...(noToken || Object.keys(options.tokens).length === 0 ? {} : { tokens: options.tokens }),
    readOnly: options.readOnly,
    basePath: options.basePath,
    traceUrl: options.traceUrl,
    ...(options.api === undefined ? {} : { api: options.api }),
  });
  const server = createServer((req, res) => void handler(req, res));
  const listening = await listenOn(server, options.port, options.host, 'dashboard');
  return { url: `${listening.origin}${options.basePath}/`, server, close: listening.close };
}
