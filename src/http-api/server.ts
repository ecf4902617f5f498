import { createServer } from 'node:http';
import { listenOn } from '../http/listen.js';
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
  const listening = await listenOn(server, port, host, 'API');
  return { url: `${listening.origin}/`, server, close: listening.close };
}
